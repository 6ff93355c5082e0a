// The production server (`npm start` runs it through scripts/serve.ts; tests and the benchmark
// start it directly): Next.js serves every request, except the protocol calls an API key makes
// most (listed in server/start-up.ts), which server/http/node-routes.ts hands straight to the
// same route handlers. On Vercel, where this file is not used, Next serves those too.
//   node scripts/start-server.mjs [--port 3000] [--hostname 0.0.0.0]
import http from "node:http";
import { parseArgs } from "node:util";

const USAGE = "usage: node scripts/start-server.mjs [--port 3000] [--hostname 0.0.0.0]";
function fail(message) {
  console.error(`[dispatch] ${message}\n${USAGE}`);
  process.exit(2);
}
let values;
try {
  ({ values } = parseArgs({ options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } } }));
} catch (err) {
  fail(err.message);
}
const port = Number(values.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`The port must be a whole number from 1 to 65535, not ${values.port ?? process.env.PORT}.`);
const hostname = values.hostname;

// Set before Next and React load, as `next start` does.
process.env.NODE_ENV ??= "production";
// The slot server/start-up.ts fills with the router when Next starts (see nodeRouterWanted).
const ROUTER = Symbol.for("dispatch.nodeRouter");
globalThis[ROUTER] = null;
const { default: next } = await import("next");
const app = next({ dev: false, dir: process.cwd(), hostname: hostname ?? "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();
const router = () => globalThis[ROUTER];

const server = http.createServer((req, res) => {
  if (router()?.(req, res)) return;
  void handle(req, res);
});
server.once("error", (err) => {
  console.error(`[dispatch] The server could not listen on port ${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  console.log(`[dispatch] Ready on http://${hostname ?? "localhost"}:${port}`);
});

// Stopping: no new connections; the runs executing here are handed back (their events so far are
// durable, and another instance goes on with each at once: server/runs/execute.ts handOffRuns);
// requests in flight get DRAIN_MS to finish, then whatever is still open (a followed event stream,
// which resumes elsewhere from its Last-Event-ID) is closed. A terminal's Ctrl-C and
// scripts/serve.ts may both signal: the first one counts.
const DRAIN_MS = 5_000;
const HAND_OFF = Symbol.for("dispatch.handOffRuns");
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  const drained = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  const handedOff = globalThis[HAND_OFF]?.(DRAIN_MS) ?? Promise.resolve(0);
  setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref();
  setTimeout(() => process.exit(0), DRAIN_MS + 2_000).unref();
  void Promise.allSettled([drained, handedOff])
    .then(() => app.close())
    .finally(() => process.exit(0));
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stop);
