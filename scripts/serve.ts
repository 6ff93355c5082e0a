// `npm run dev` [-- --hostname H] [--port P]: zero-config development start. Opens the database
// (embedded PostgreSQL under .data/ unless DATABASE_URL is set), migrates, seeds the first admin,
// then runs `next dev`; on SIGINT, SIGTERM or SIGHUP it stops `next dev`, then the embedded
// database, then exits. (`npm start` does the same without a wrapper process: scripts/start.mjs.)
// package.json starts it with `exec`: npm forwards the signal a supervisor sends it to its
// script's shell, and `sh -c` (dash) dies without passing it on, which would leave this process and
// everything it started running.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import type { RunningDatabase } from "./lib/embedded-postgres";
import { closeAppDb, ensureFirstAdmin, log, prepareDatabase, resolveAuthSecret } from "./lib/bootstrap";
import { displayUrl, listenAddress } from "./lib/listen-address";

const USAGE = "usage: npm run dev -- [--hostname 127.0.0.1] [--port 3000]";
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
// `next dev` stops on SIGTERM; past this it is killed.
const SERVER_STOP_TIMEOUT_MS = 10_000;

let db: RunningDatabase | undefined;
let server: ChildProcess | undefined;
let stopSignal: NodeJS.Signals | undefined;

async function exitAfterDatabase(code: number): Promise<never> {
  try {
    await db?.stop();
  } catch (err) {
    console.error(`[dispatch] The embedded PostgreSQL did not stop cleanly: ${err instanceof Error ? err.message : String(err)}`);
    code ||= 1;
  }
  process.exit(code);
}

function requestStop(signal: NodeJS.Signals): void {
  // A terminal's Ctrl-C and a supervisor may both signal: the first one decides.
  if (stopSignal) return;
  stopSignal = signal;
  if (!server) return; // still starting: main() stops at its next step
  // `next dev` stops gracefully on SIGTERM, whatever asked this one to stop.
  server.kill("SIGTERM");
  setTimeout(() => server?.kill("SIGKILL"), SERVER_STOP_TIMEOUT_MS).unref();
}

async function main(): Promise<void> {
  // embedded-postgres (imported by ./lib/bootstrap) hooks these signals to stop PostgreSQL and exit
  // at once, which would leave the server draining against a stopped database and still running
  // after this process is gone. This process owns the order instead.
  for (const signal of STOP_SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, () => requestStop(signal));
  }
  const address = listenAddress(process.argv.slice(2), USAGE);
  const baseUrl = displayUrl(address);
  log("Starting Dispatch (dev)…");
  try {
    db = await prepareDatabase();
    if (!stopSignal) await ensureFirstAdmin(baseUrl);
    await closeAppDb();
  } catch (err) {
    console.error(`[dispatch] ${err instanceof Error ? err.message : String(err)}`);
    return exitAfterDatabase(1);
  }
  if (stopSignal) return exitAfterDatabase(0);

  const listen = ["-p", String(address.port), ...(address.hostname ? ["-H", address.hostname] : [])];
  server = spawn(process.execPath, [createRequire(import.meta.url).resolve("next/dist/bin/next"), "dev", ...listen], {
    stdio: "inherit",
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      AUTH_SECRET: resolveAuthSecret(),
      PORT: String(address.port),
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  log(`Dispatch is starting on ${baseUrl}`);
  server.once("error", (err) => {
    console.error(`[dispatch] Could not start the server: ${err.message}`);
    void exitAfterDatabase(1);
  });
  server.once("exit", (code, signal) => {
    // Stopped as asked (a terminal's Ctrl-C may reach it directly): a clean stop; killed: not.
    if (code === null && stopSignal && signal !== "SIGKILL") code = 0;
    void exitAfterDatabase(code ?? 128 + (signal ? constants.signals[signal] : 0));
  });
}

void main();
