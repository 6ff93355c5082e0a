// One instance of a Vercel function, as a stand-in for the platform's bridge runs it: the function's
// launcher (its .vc-config.json handler) serves each request inside a request context that offers
// `waitUntil` (read by Next's `after` and @vercel/functions), and an invocation still working when
// its time limit comes (its answer not finished, or work handed to waitUntil not settled) stops the
// whole instance at once, as the platform does. The parent runs this with the code folder mounted
// read-only and tells it the port through IPC.
// With a third argument `tell`, the request context also says when the invocation will be
// stopped (`deadline`, read by @vercel/functions' getDeadline), as a platform may.
//   node function-instance.mjs <function dir> <time limit ms> [tell]
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { clearTimeout, setTimeout } from "node:timers";

const [funcDir, limitArg, tell] = process.argv.slice(2);
const timeLimitMs = Number(limitArg);
const config = JSON.parse(readFileSync(path.join(funcDir, ".vc-config.json"), "utf8"));
Object.assign(process.env, config.environment ?? {});

const requestContext = new AsyncLocalStorage();
globalThis[Symbol.for("@vercel/request-context")] = { get: () => requestContext.getStore() };

const handler = createRequire(import.meta.url)(path.join(funcDir, config.handler));

const server = http.createServer((req, res) => {
  const pending = new Set();
  let answered = false;
  const settle = () => {
    if (answered && pending.size === 0) clearTimeout(limit);
  };
  const limit = setTimeout(() => {
    process.stderr.write(`[function] ${req.method} ${req.url} reached its time limit (${timeLimitMs} ms): the instance stops\n`);
    process.kill(process.pid, "SIGKILL");
  }, timeLimitMs);
  res.once("close", () => {
    answered = true;
    settle();
  });
  const waitUntil = (promise) => {
    const p = Promise.resolve(promise).catch(() => {});
    pending.add(p);
    void p.finally(() => {
      pending.delete(p);
      settle();
    });
  };
  const deadline = tell === "tell" ? new Date(Date.now() + timeLimitMs).toISOString() : undefined;
  requestContext.run({ waitUntil, headers: req.headers, deadline }, () => {
    Promise.resolve(handler(req, res)).catch((err) => {
      process.stderr.write(`[function] handler failed: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
