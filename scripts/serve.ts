// `npm run dev` / `npm start`: zero-config start. Opens the database (embedded PostgreSQL
// under .data/ unless DATABASE_URL is set), migrates, seeds the first admin, then runs the server.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { env } from "../server/env";
import { closeAppDb, ensureFirstAdmin, log, prepareDatabase, resolveAuthSecret } from "./lib/bootstrap";

const mode = process.argv[2] === "start" ? "start" : "dev";

async function main(): Promise<void> {
  log(`Starting Dispatch (${mode})…`);
  let db;
  try {
    db = await prepareDatabase();
  } catch (err) {
    console.error(`[dispatch] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  const baseUrl = `http://localhost:${env.PORT}`;
  await ensureFirstAdmin(baseUrl);
  await closeAppDb();

  // Production runs scripts/start-server.mjs (Next, with the protocol streams served beside it);
  // development runs `next dev`.
  const command =
    mode === "start"
      ? [fileURLToPath(new URL("./start-server.mjs", import.meta.url)), "-p", String(env.PORT)]
      : [createRequire(import.meta.url).resolve("next/dist/bin/next"), "dev", "-p", String(env.PORT)];
  const child = spawn(process.execPath, command, {
    stdio: "inherit",
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      AUTH_SECRET: resolveAuthSecret(),
      NEXT_TELEMETRY_DISABLED: "1",
      ...(mode === "start" ? { NODE_ENV: "production" } : {}),
    },
  });
  log(`Dispatch is starting on ${baseUrl}`);

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    child.kill(signal);
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  child.on("exit", (code) => {
    void db.stop().finally(() => process.exit(code ?? 0));
  });
}

void main();
