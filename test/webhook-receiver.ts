import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

// A webhook receiver as a customer would write one: node:http, signatures checked with the
// Standard Webhooks library, deduplication by webhook-id. What it answers is the test's to script.

export type Received = { path: string; id: string; verified: boolean; answered: number | "hang"; payload: { type: string; timestamp: string; data: Record<string, Record<string, unknown>> } | null; signature: string };

export type Receiver = {
  url: (path: string) => string;
  /** Every request, in arrival order (duplicates included). */
  received: Received[];
  /** The first delivery of each webhook-id sent to `path` that was verified and accepted (2xx): what a receiver stores, once. */
  unique: (path: string) => Received[];
  /** Every request to `path`. */
  to: (path: string) => Received[];
  /** The secret a path's requests are verified with. */
  secrets: Map<string, string>;
  /** How to answer a path's next request: a status, or "hang" (never answer). Default 200. */
  answer: (path: string, next: (received: Received) => number | "hang") => void;
  close: () => Promise<void>;
};

export async function startWebhookReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, (r: Received) => number | "hang">();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let payload: Received["payload"];
      try {
        payload = new Webhook(secrets.get(path) ?? "whsec_AAAA").verify(body, headers) as Received["payload"];
      } catch {
        payload = null;
      }
      const r: Received = { path, id: headers["webhook-id"] ?? "", verified: payload !== null, answered: 200, payload, signature: headers["webhook-signature"] ?? "" };
      // An unverified request is refused, as a receiver must.
      r.answered = r.verified ? (answers.get(path)?.(r) ?? 200) : 401;
      received.push(r);
      if (r.answered === "hang") return;
      res.writeHead(r.answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    unique: (path) => {
      const seen = new Map<string, Received>();
      for (const r of received) if (r.path === path && r.verified && r.answered === 200 && !seen.has(r.id)) seen.set(r.id, r);
      return [...seen.values()];
    },
    to: (path) => received.filter((r) => r.path === path),
    secrets,
    answer: (path, next) => answers.set(path, next),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
