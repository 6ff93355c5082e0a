// `npm run dev` / `npm start` [-- --hostname H] [--port P]: zero-config start. Opens the database
// (embedded PostgreSQL under .data/ unless DATABASE_URL is set), migrates, seeds the first admin,
// then runs the server; on SIGINT, SIGTERM or SIGHUP it stops the server (which drains, bounded),
// then the embedded database, then exits. package.json starts it with `exec`: npm forwards the
// signal a supervisor sends it to its script's shell, and `sh -c` (dash) dies without passing it
// on, which would leave this process and everything it started running.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import os, { constants } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { env } from "../server/env";
import type { RunningDatabase } from "./lib/embedded-postgres";
import { closeAppDb, ensureFirstAdmin, log, prepareDatabase, resolveAuthSecret } from "./lib/bootstrap";

const mode = process.argv[2] === "start" ? "start" : "dev";
const USAGE = `usage: npm ${mode === "start" ? "start" : "run dev"} -- [--hostname 127.0.0.1] [--port 3000]`;
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
// The server drains for at most 5 s on its own (scripts/start-server.mjs); past this it is killed.
const SERVER_STOP_TIMEOUT_MS = 10_000;

function fail(message: string): never {
  console.error(`[dispatch] ${message}\n${USAGE}`);
  process.exit(2);
}

/** Where to listen: flags first, then HOSTNAME and PORT. No hostname means every interface, as `next start` does. */
function listenAddress(): { hostname?: string; port: number } {
  let values: { hostname?: string; port?: string };
  try {
    ({ values } = parseArgs({ args: process.argv.slice(3), options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } } }));
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  const port = values.port === undefined ? env.PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`The port must be a whole number from 1 to 65535, not ${values.port}.`);
  if (values.hostname?.trim()) return { hostname: values.hostname.trim(), port };
  // Docker, and the login profile of some distributions, export HOSTNAME as this machine's own
  // name: that is not a choice of address, and binding to it would shut out localhost.
  if (env.HOSTNAME && env.HOSTNAME !== os.hostname()) return { hostname: env.HOSTNAME, port };
  if (env.HOSTNAME) log(`HOSTNAME is this machine's name (${env.HOSTNAME}), not an address to listen on: listening on every interface (use --hostname to bind to it)`);
  return { port };
}

/** The URL to print: the address listened on, or localhost when that is every interface. */
function displayUrl({ hostname, port }: { hostname?: string; port: number }): string {
  const host = !hostname || ["0.0.0.0", "::", "[::]"].includes(hostname) ? "localhost" : hostname;
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

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
  // Both servers (ours and `next dev`) stop gracefully on SIGTERM, whatever asked this one to stop.
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
  const address = listenAddress();
  const baseUrl = displayUrl(address);
  log(`Starting Dispatch (${mode})…`);
  try {
    db = await prepareDatabase();
    if (!stopSignal) await ensureFirstAdmin(baseUrl);
    await closeAppDb();
  } catch (err) {
    console.error(`[dispatch] ${err instanceof Error ? err.message : String(err)}`);
    return exitAfterDatabase(1);
  }
  if (stopSignal) return exitAfterDatabase(0);

  // Production runs scripts/start-server.mjs (Next, with the protocol streams served beside it);
  // development runs `next dev`.
  const listen = ["-p", String(address.port), ...(address.hostname ? ["-H", address.hostname] : [])];
  const command =
    mode === "start"
      ? [fileURLToPath(new URL("./start-server.mjs", import.meta.url)), ...listen]
      : [createRequire(import.meta.url).resolve("next/dist/bin/next"), "dev", ...listen];
  server = spawn(process.execPath, command, {
    stdio: "inherit",
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      AUTH_SECRET: resolveAuthSecret(),
      PORT: String(address.port),
      NEXT_TELEMETRY_DISABLED: "1",
      ...(mode === "start" ? { NODE_ENV: "production" } : {}),
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
