import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { decode } from "@ag-ui/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTO_ENCODING, PROTO_MEDIA_TYPE } from "../protocols/ag-ui/encoding";
import { MAX_PAYLOAD_BYTES } from "../protocols/ag-ui/run-input-rules";
import type { EventRecord } from "../kernel/runs";
import { waitFor } from "@/test/wait";
import { createNodeRouter, type NodeRoute } from "./node-routes";
import { sseResponse } from "./sse";

// The router in front of Next (scripts/start-server.mjs), over real HTTP: what it takes reaches
// the handler as Next would pass it, answers stream as they are produced, a client going away
// reaches the handler, and what it leaves is left unread for Next.

type Seen = { method: string; url: string; body: string; auth: string | null; params: Record<string, string>; signal: AbortSignal };
const seen: Seen[] = [];
let release: (() => void) | null = null;
let cancelled = false;
let openSlow: (() => void) | null = null;

// An event stream from sseResponse: one frame, then (on `more`) two more, the last final; a
// source that would go on waiting after that, so only the final frame can end the answer.
const FINAL = new Set(["RUN_FINISHED"]);
const record = (seq: number, type: string): EventRecord => ({ seq, type, json: JSON.stringify({ type }) });
let more: (() => void) | null = null;
let sourceEnded = false;
function runEvents(): Response {
  sourceEnded = false;
  return sseResponse(
    async function* (signal) {
      try {
        yield [record(1, "RUN_STARTED")];
        // Waits as followRunBatches does: until there is more, or the client has gone.
        await new Promise<void>((r) => {
          more = r;
          signal.addEventListener("abort", () => r());
        });
        if (signal.aborted) return;
        yield [record(2, "TEXT_MESSAGE_CONTENT"), record(3, "RUN_FINISHED")];
        await new Promise((r) => signal.addEventListener("abort", r));
      } finally {
        sourceEnded = true;
      }
    },
    { final: FINAL },
  );
}
const FRAMES = ["RUN_STARTED", "TEXT_MESSAGE_CONTENT", "RUN_FINISHED"].map((type, i) => `id: ${i + 1}\ndata: {"type":"${type}"}\n\n`);

// The same run in protobuf: binary frames, two batches, the second ending with the final event.
const PROTO_EVENTS = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
  { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
  { type: "TEXT_MESSAGE_END", messageId: "m1" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1", outcome: { type: "success" } },
];
function protoRunEvents(): Response {
  const recs = PROTO_EVENTS.map((event, i): EventRecord => ({ seq: i + 1, type: event.type, json: JSON.stringify(event) }));
  return sseResponse(
    async function* () {
      yield recs.slice(0, 1);
      yield recs.slice(1);
    },
    { encoding: PROTO_ENCODING, final: FINAL },
  );
}

/** The events in a protobuf stream's bytes: each a 4-byte big-endian length, then the message. */
function protoFrames(bytes: Buffer): unknown[] {
  const events: unknown[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    events.push(decode(bytes.subarray(at + 4, at + 4 + length)));
    at += 4 + length;
  }
  return events;
}

const routes: NodeRoute[] = [
  {
    method: "POST",
    path: "/api/v1/agent/runs",
    handler: async (req, ctx) => {
      seen.push({ method: req.method, url: req.url, body: await req.text(), auth: req.headers.get("authorization"), params: await ctx.params, signal: req.signal });
      return new Response(JSON.stringify({ accepted: true }), { status: 202, headers: { "content-type": "application/json", "x-task-id": "t1" } });
    },
  },
  {
    method: "GET",
    path: "/api/v1/agent/runs/[runId]/events",
    handler: async (req, ctx) => {
      const params = (await ctx.params) as Record<string, string>;
      seen.push({ method: req.method, url: req.url, body: "", auth: req.headers.get("authorization"), params, signal: req.signal });
      if (params.runId === "boom") throw new Error("handler failed");
      if (params.runId === "slow") await new Promise<void>((r) => (openSlow = r));
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode("data: first\n\n"));
          release = () => {
            controller.enqueue(encoder.encode("data: second\n\n"));
            controller.close();
          };
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  },
  { method: "GET", path: "/api/v1/agent/runs/[runId]/frames", handler: async () => runEvents() },
  { method: "GET", path: "/api/v1/agent/runs/[runId]/proto", handler: async () => protoRunEvents() },
  {
    method: "GET",
    path: "/api/v1/agent/history",
    handler: async (req) => {
      const size = Number(new URL(req.url).searchParams.get("size"));
      return new Response(JSON.stringify({ messages: "m".repeat(size) }), { headers: { "content-type": "application/json" } });
    },
  },
];

const router = createNodeRouter(routes);
let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (router(req, res)) return;
    // Stands in for Next: says it got the request, with every byte of the body.
    let bytes = 0;
    req.on("data", (c: Buffer) => (bytes += c.length));
    req.on("end", () => res.writeHead(299, { "x-next": "1" }).end(String(bytes)));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

type RawRequest = { method: string; path: string; headers?: Record<string, string>; body?: string; chunked?: boolean };

/** A raw request, so the test controls framing (chunked or not) exactly. */
function request(opts: RawRequest): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: opts.method, path: opts.path, headers: opts.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.once("error", reject);
    if (opts.body !== undefined) {
      if (!opts.chunked) req.setHeader("content-length", Buffer.byteLength(opts.body));
      req.write(opts.body);
    }
    req.end();
  });
}

const bearer = { authorization: "Bearer dsp_test" };

describe("node routes", () => {
  it("hands a matching request to the handler with its method, URL, headers and body", async () => {
    seen.length = 0;
    const body = JSON.stringify({ threadId: "t", text: "héllo" });
    const res = await request({ method: "POST", path: "/api/v1/agent/runs?x=1", headers: { ...bearer, host: "dispatch.test:8080", "content-type": "application/json" }, body });
    expect(res.status).toBe(202);
    expect(res.headers["x-task-id"]).toBe("t1");
    expect(JSON.parse(res.body)).toEqual({ accepted: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", url: "http://dispatch.test:8080/api/v1/agent/runs?x=1", body, auth: "Bearer dsp_test", params: {} });
  });

  it("streams an answer as it is produced, and decodes path parameters", async () => {
    seen.length = 0;
    release = null;
    const chunks: string[] = [];
    const done = new Promise<number>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/api/v1/agent/runs/run%201/events", headers: bearer }, (res) => {
          res.setEncoding("utf8");
          res.on("data", (c: string) => chunks.push(c));
          res.on("end", () => resolve(res.statusCode!));
        })
        .once("error", reject);
    });
    await waitFor(() => chunks.join("").includes("data: first"));
    expect(chunks.join("")).not.toContain("second");
    expect(seen[0]!.params).toEqual({ runId: "run 1" });
    release!();
    expect(await done).toBe(200);
    expect(chunks.join("")).toBe("data: first\n\ndata: second\n\n");
  });

  it("tells the handler when the client goes away: its request is aborted and its stream cancelled", async () => {
    seen.length = 0;
    cancelled = false;
    const req = http.get({ host: "127.0.0.1", port, path: "/api/v1/agent/runs/r2/events", headers: bearer });
    req.once("error", () => {});
    await new Promise<void>((resolve) => req.once("response", (res) => res.once("data", () => resolve())));
    expect(seen[0]!.signal.aborted).toBe(false);
    req.destroy();
    await waitFor(() => cancelled && seen[0]!.signal.aborted);
  });

  it("cancels the stream of a client that went away while the handler was still working", async () => {
    seen.length = 0;
    cancelled = false;
    openSlow = null;
    const req = http.get({ host: "127.0.0.1", port, path: "/api/v1/agent/runs/slow/events", headers: bearer });
    req.once("error", () => {});
    await waitFor(() => openSlow !== null);
    req.destroy();
    await waitFor(() => seen[0]!.signal.aborted);
    openSlow!();
    await waitFor(() => cancelled);
  });

  it("gzips a whole answer of 1 KiB or more for a client that accepts gzip, and only then", async () => {
    const get = (size: number, encoding?: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const headers = { ...bearer, ...(encoding === undefined ? {} : { "accept-encoding": encoding }) };
        http
          .get({ host: "127.0.0.1", port, path: `/api/v1/agent/history?size=${size}`, headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .once("error", reject);
      });
    const big = JSON.stringify({ messages: "m".repeat(50_000) });
    const zipped = await get(50_000, "br, gzip;q=0.8");
    expect(zipped.headers).toMatchObject({ "content-encoding": "gzip", vary: "Accept-Encoding", "content-length": String(zipped.body.length) });
    expect(zipped.body.length).toBeLessThan(big.length / 10);
    expect(gunzipSync(zipped.body).toString()).toBe(big);
    for (const encoding of [undefined, "identity", "gzip;q=0, *", "br"]) {
      const plain = await get(50_000, encoding);
      expect(plain.headers["content-encoding"], encoding).toBeUndefined();
      expect(plain.body.toString(), encoding).toBe(big);
    }
    const small = await get(100, "gzip");
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toEqual({ messages: "m".repeat(100) });
  });

  it("answers 500 with an error body when the handler throws", async () => {
    const res = await request({ method: "GET", path: "/api/v1/agent/runs/boom/events", headers: bearer });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: { code: "INTERNAL", message: "Internal server error" } });
  });

  it.each([
    ["no Authorization header (a browser session needs Next)", { method: "POST", path: "/api/v1/agent/runs", body: "{}" }],
    ["a chunked body", { method: "POST", path: "/api/v1/agent/runs", headers: bearer, body: "{}", chunked: true }],
    ["a body over the protocols' limit", { method: "POST", path: "/api/v1/agent/runs", headers: bearer, body: "x".repeat(MAX_PAYLOAD_BYTES + 1) }],
    ["another path", { method: "POST", path: "/api/v1/agent/runs/", headers: bearer, body: "{}" }],
    ["another method", { method: "GET", path: "/api/v1/agent/runs", headers: bearer }],
  ] as [string, RawRequest][])("leaves %s to Next, body unread", async (_name, opts) => {
    seen.length = 0;
    const res = await request(opts);
    expect(res.status).toBe(299);
    expect(res.body).toBe(String(Buffer.byteLength(opts.body ?? "")));
    expect(seen).toHaveLength(0);
  });

  it.each([
    ["a truncated escape, with an API key", { method: "GET", path: "/api/v1/agent/runs/%E0%A4%A/events", headers: bearer }],
    ["a non-hex escape, without one", { method: "GET", path: "/api/v1/agent/runs/%ZZ" }],
    ["an escape of bytes that are not UTF-8, on a POST", { method: "POST", path: "/api/v1/agent/process/%ED%A0%80/cancel", body: "{}" }],
  ] as [string, RawRequest][])("answers a path with %s 400 itself, before Next or a handler sees it", async (_name, opts) => {
    seen.length = 0;
    const res = await request(opts);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: { code: "BAD_REQUEST", message: expect.stringContaining("malformed percent-escape") } });
    expect(seen).toHaveLength(0);
  });

  it("pumps an event stream into the socket: frames as they come, and the final frame ends the answer and its source", async () => {
    more = null;
    const chunks: string[] = [];
    let status = 0;
    const done = new Promise<void>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/api/v1/agent/runs/r1/frames", headers: bearer }, (res) => {
          status = res.statusCode!;
          expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
          res.setEncoding("utf8");
          res.on("data", (c: string) => chunks.push(c));
          res.on("end", () => resolve());
        })
        .once("error", reject);
    });
    await waitFor(() => chunks.join("") === FRAMES[0] && more !== null);
    more!();
    await done;
    expect(status).toBe(200);
    expect(chunks.join("")).toBe(FRAMES.join(""));
    await waitFor(() => sourceEnded);
  });

  it("abandons a pumped stream's source when the client goes away", async () => {
    more = null;
    const req = http.get({ host: "127.0.0.1", port, path: "/api/v1/agent/runs/r2/frames", headers: bearer });
    req.once("error", () => {});
    await new Promise<void>((resolve) => req.once("response", (res) => res.once("data", () => resolve())));
    expect(sourceEnded).toBe(false);
    req.destroy();
    await waitFor(() => sourceEnded);
  });

  it("pumps a protobuf stream as bytes, under the exact Content-Type @ag-ui/client reads it by, and the same as a Response body", async () => {
    const answer = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/api/v1/agent/runs/r1/proto", headers: bearer }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .once("error", reject);
    });
    expect(answer.headers["content-type"]).toBe(PROTO_MEDIA_TYPE);
    expect(protoFrames(answer.body)).toEqual(PROTO_EVENTS);
    expect(Buffer.from(await protoRunEvents().arrayBuffer())).toEqual(answer.body);
  });

  it("gives the same frames as a Response body (Next's path), ending at the final frame", async () => {
    more = null;
    const response = runEvents();
    const text = response.text();
    await waitFor(() => more !== null);
    more!();
    expect(await text).toBe(FRAMES.join(""));
    expect(sourceEnded).toBe(true);
  });
});
