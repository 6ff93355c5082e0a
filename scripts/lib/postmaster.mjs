// The embedded PostgreSQL's postmaster, as `npm start`'s server process runs it (scripts/start.mjs):
// the set-up child decides how to start it (scripts/lib/embedded-postgres.ts) and this process
// starts it, so the postmaster is this process's child and lives exactly as long as the app.
// Plain JavaScript: it is loaded into the server for its whole life.
import { spawn } from "node:child_process";

const READY = "database system is ready to accept connections";
const RECENT_LINES = 20;

/**
 * Starts the postmaster and resolves once it accepts connections.
 * @param {{ command: string, args: string[], uid?: number, gid?: number }} how
 * @returns {Promise<{ pid: number, stop: () => Promise<void> }>}
 */
export function startPostmaster({ command, args, uid, gid }) {
  const postgres = spawn(command, args, {
    // A session of its own: a terminal's Ctrl-C or hang-up reaches the server, which drains
    // against a live database and then stops it, instead of both at once.
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    // The readiness line is looked for in English.
    env: { ...process.env, LC_MESSAGES: "C" },
    ...(uid === undefined ? {} : { uid, gid }),
  });
  // Read for the postmaster's whole life (a full pipe would block its log writes), kept only to
  // explain a start that failed, as the library does.
  const recent = [];
  let partial = "";
  const started = new Promise((resolve, reject) => {
    postgres.stderr.setEncoding("utf8").on("data", (chunk) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop();
      for (const line of lines) {
        if (line.includes(READY)) resolve();
        if (line.trim() && recent.push(line.trim()) > RECENT_LINES) recent.shift();
      }
    });
    postgres.once("error", reject);
    // "close": its last words have been read.
    postgres.once("close", () => reject(new Error(recent.join("\n"))));
  });
  const exited = new Promise((resolve) => postgres.once("exit", resolve));
  const running = () => postgres.exitCode === null && postgres.signalCode === null;
  // Whatever ends this process (an uncaught error, process.exit anywhere), the database stops too:
  // SIGINT is PostgreSQL's fast shutdown, which it completes on its own.
  const stopOnExit = () => running() && postgres.kill("SIGINT");
  process.on("exit", stopOnExit);
  return started.then(
    () => ({
      pid: postgres.pid,
      stop: async () => {
        process.off("exit", stopOnExit);
        if (running()) postgres.kill("SIGINT");
        await exited;
      },
    }),
    (err) => {
      process.off("exit", stopOnExit);
      throw err;
    },
  );
}
