import http from "node:http";
import type { AddressInfo } from "node:net";

export type RoundRobinProxy = {
  url: string;
  /** How many requests each target got, in the order of `targets`. */
  served: number[];
  close(): Promise<void>;
};

/**
 * A load balancer in front of several instances, as operators put one: each request goes to the
 * next target in turn, bodies stream both ways (SSE included), and nothing is sticky, so a
 * client's follow-up requests land on whichever instance comes next.
 */
export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  const served = targets.map(() => 0);
  let next = 0;
  const server = http.createServer((req, res) => {
    const index = next++ % targets.length;
    served[index]!++;
    const target = new URL(targets[index]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // A client that goes away (a stopped stream) closes the upstream request as well.
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
