// `npm start` [-- --hostname H] [--port P]: zero-config production start, as one long-lived process.
// A short-lived child (scripts/start-setup.ts, under tsx) opens the database (the embedded
// PostgreSQL under .data/ unless DATABASE_URL is set), migrates, seeds the first admin and reads
// AUTH_SECRET, then exits; this process, plain JavaScript, becomes the server. It starts the
// embedded postmaster when the child asks, so the database is its child and lives as long as it
// does: on SIGINT, SIGTERM or SIGHUP the server drains and hands its runs back, then PostgreSQL
// stops, then this process exits 0. package.json starts it with `exec`: npm forwards the signal a
// supervisor sends it to its script's shell, and `sh -c` (dash) dies without passing it on.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serveNext } from "./lib/next-server.mjs";
import { startPostmaster } from "./lib/postmaster.mjs";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

let postmaster;
async function stopDatabase() {
  try {
    await postmaster?.stop();
  } catch (err) {
    console.error(`[dispatch] The embedded PostgreSQL did not stop cleanly: ${err.message}`);
    throw err;
  }
}

/** Runs the set-up child; resolves with its answer, or with none when it failed or was stopped. */
function setUp() {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", fileURLToPath(new URL("./start-setup.ts", import.meta.url)), ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  // A stop during set-up (a supervisor signals npm, hence this process, alone) ends the child
  // after its current step; a terminal's Ctrl-C reaches both.
  let stopSignal;
  const onStop = (signal) => {
    stopSignal ??= signal;
    child.kill("SIGTERM");
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onStop);
  let ready;
  // The child may be gone by the time the postmaster is up (stopped meanwhile): nobody to answer.
  const answer = (message) => child.connected && child.send(message);
  child.on("message", (message) => {
    if (message.kind === "ready") ready = message;
    if (message.kind !== "postmaster") return;
    startPostmaster(message.how).then(
      (started) => {
        postmaster = started;
        answer({ kind: "postmaster" });
      },
      (err) => answer({ kind: "postmaster", error: err.message }),
    );
  });
  return new Promise((resolve) => {
    child.once("error", (err) => {
      console.error(`[dispatch] Could not run the set-up: ${err.message}`);
      resolve({ code: 1 });
    });
    // "close", not "exit": every message the child sent has arrived.
    child.once("close", (code) => {
      for (const s of STOP_SIGNALS) process.off(s, onStop);
      if (stopSignal) resolve({ code: 0 });
      else if (code === 0 && ready) resolve({ ready });
      else resolve({ code: code || 1 });
    });
  });
}

const { ready, code } = await setUp();
if (!ready) process.exit(await stopDatabase().then(() => code, () => code || 1));
Object.assign(process.env, {
  DATABASE_URL: ready.databaseUrl,
  AUTH_SECRET: ready.authSecret,
  PORT: String(ready.port),
  NEXT_TELEMETRY_DISABLED: "1",
  NODE_ENV: "production",
});
try {
  await serveNext({ port: ready.port, hostname: ready.hostname, afterStop: stopDatabase });
} catch (err) {
  console.error(`[dispatch] The server did not start: ${err instanceof Error ? err.message : String(err)}`);
  await stopDatabase().catch(() => {});
  process.exit(1);
}
