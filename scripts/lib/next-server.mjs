// The production server, as `npm start` (scripts/start.mjs) and `node scripts/start-server.mjs`
// run it: Next.js serves every request, except the protocol calls an API key makes most (listed in
// server/start-up.ts), which server/http/node-routes.ts hands straight to the same route handlers.
// On Vercel, where this file is not used, Next serves those too.
import http from "node:http";

// Stopping: no new connections; the runs executing here are handed back (their events so far are
// durable, and another instance goes on with each at once: server/runs/execute.ts handOffRuns);
// requests in flight get DRAIN_MS to finish, then whatever is still open (a followed event stream,
// which resumes elsewhere from its Last-Event-ID) is closed.
const DRAIN_MS = 5_000;
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
// The slot server/start-up.ts fills with the router when Next starts (see nodeRouterWanted).
const ROUTER = Symbol.for("dispatch.nodeRouter");
const HAND_OFF = Symbol.for("dispatch.handOffRuns");
// Closes the server's database connections (server/start-up.ts).
const CLOSE_DATABASE = Symbol.for("dispatch.closeDatabase");
// The connection's address, for the credential back-off (server/lib/peer-address.ts): written
// into every request here, so a client's own copy of the header never reaches the app.
const PEER_ADDRESS_HEADER = "x-dispatch-peer-address";
const PEER_ADDRESS_STAMPED = Symbol.for("dispatch.peerAddressStamped");

/** Replaces any PEER_ADDRESS_HEADER the client sent with the TCP peer's address, before anything reads the headers. */
function stampPeerAddress(req) {
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i].toLowerCase() === PEER_ADDRESS_HEADER) raw.splice(i, 2);
  const address = req.socket.remoteAddress ?? "";
  raw.push(PEER_ADDRESS_HEADER, address);
  req.headers[PEER_ADDRESS_HEADER] = address;
}

/**
 * Serves until SIGINT, SIGTERM or SIGHUP, then drains and exits 0 once `afterStop` (what the server
 * leaves behind it, such as its database) has ended; 1 when that failed. A terminal's Ctrl-C and a supervisor may
 * both signal: the first one counts; a stop asked while Next is still loading waits for it.
 * @param {{ port: number, hostname?: string, afterStop?: () => Promise<void> }} options
 */
export async function serveNext({ port, hostname, afterStop = async () => {} }) {
  let exiting = false;
  const exit = (code) => {
    if (exiting) return;
    exiting = true;
    void afterStop().then(
      () => process.exit(code),
      () => process.exit(code || 1),
    );
  };
  let stopAsked = false;
  let stop = () => (stopAsked = true);
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop());

  // Set before Next and React load, as `next start` does.
  process.env.NODE_ENV ??= "production";
  globalThis[ROUTER] = null;
  globalThis[PEER_ADDRESS_STAMPED] = true;
  const { default: next } = await import("next");
  const app = next({ dev: false, dir: process.cwd(), hostname: hostname ?? "localhost", port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const router = () => globalThis[ROUTER];

  const server = http.createServer((req, res) => {
    stampPeerAddress(req);
    if (router()?.(req, res)) return;
    void handle(req, res);
  });
  server.once("error", (err) => {
    console.error(`[dispatch] The server could not listen on port ${port}: ${err.message}`);
    exit(1);
  });
  server.listen(port, hostname, () => {
    console.log(`[dispatch] Ready on http://${hostname ?? "localhost"}:${port}`);
  });

  let stopping = false;
  stop = () => {
    if (stopping) return;
    stopping = true;
    const drained = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    const handedOff = globalThis[HAND_OFF]?.(DRAIN_MS) ?? Promise.resolve(0);
    setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref();
    setTimeout(() => exit(0), DRAIN_MS + 2_000).unref();
    void Promise.allSettled([drained, handedOff])
      .then(() => app.close())
      .then(() => globalThis[CLOSE_DATABASE]?.())
      .finally(() => exit(0));
  };
  if (stopAsked) stop();
}
