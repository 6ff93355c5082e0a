import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHostClient, HostApiError } from "./host-client";

type Seen = { method?: string; url?: string; auth?: string; body: Record<string, unknown>; closedEarly: Promise<boolean> };
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>) => void;

const SECRET = "host-client-secret";
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A tiny host: records each request and answers with `handler`. */
async function fakeHost(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const closedEarly = new Promise<boolean>((resolve) => res.on("close", () => resolve(!res.writableFinished)));
    const body = JSON.parse(raw) as Record<string, unknown>;
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body, closedEarly });
    handler(req, res, body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const context = (deadlineInSeconds: number | null = 600) => ({
  run_id: "run-123",
  runtime: { host: "dispatch", trace_id: "t", deadline_at: deadlineInSeconds === null ? null : Date.now() / 1000 + deadlineInSeconds, static_refs: {}, metadata: {} },
});

describe("host client", () => {
  it("posts {run_id, ...params} with the runner secret to /api/v1/runner-api/{group}/{action} and returns data", async () => {
    const host = await fakeHost((_req, res, body) => json(res, 200, { ok: true, data: { scope: body.scope, key: body.key, found: true, value: { turns: 2 } } }));
    const client = createHostClient({ hostUrl: `${host.url}/`, secret: SECRET, context: context() });
    const got = await client.state.get({ scope: "conversation", key: "turns" });
    expect(got).toEqual({ scope: "conversation", key: "turns", found: true, value: { turns: 2 } });
    expect(host.seen[0]).toMatchObject({ method: "POST", url: "/api/v1/runner-api/state/get", auth: `Bearer ${SECRET}`, body: { run_id: "run-123", scope: "conversation", key: "turns" } });
    await client.tools.getDetail({ tool_name: "project_cli" });
    expect(host.seen[1]!.url).toBe("/api/v1/runner-api/tools/get_detail");
  });

  it("throws the host's AgentAPIError as HostApiError with code, retryable, details and status", async () => {
    const host = await fakeHost((_req, res) =>
      json(res, 429, { ok: false, error: { code: "rate_limited", message: "Over 600 calls a minute", retryable: true, details: { retry_after_ms: 1000 } } }),
    );
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context() });
    const err = await client.tools.call({ tool_name: "project_cli", parameters: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostApiError);
    expect(err).toMatchObject({ code: "rate_limited", message: "Over 600 calls a minute", retryable: true, details: { retry_after_ms: 1000 }, status: 429 });
  });

  it("describes an answer that is not an AgentAPIError from its status", async () => {
    const host = await fakeHost((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>bad gateway</html>");
    });
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context() });
    await expect(client.events.page({})).rejects.toMatchObject({ code: "runtime_error", retryable: true, status: 502, message: expect.stringContaining("HTTP 502") });
  });

  it("gives up at the run's deadline with deadline_exceeded and drops the connection", async () => {
    const host = await fakeHost(() => {}); // never answers
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context(0.3), timeoutMs: 60_000 });
    const started = Date.now();
    const err = (await client.models.invoke({ model_id: "m", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)) as HostApiError;
    expect(err).toBeInstanceOf(HostApiError);
    expect(err).toMatchObject({ code: "deadline_exceeded", retryable: false, status: 0, details: { run_deadline: true } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await host.seen[0]!.closedEarly).toBe(true);
  });

  it("uses the per-call timeout when it is shorter than the deadline, and says a retry may help", async () => {
    const host = await fakeHost(() => {});
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context(600) });
    await expect(client.history.page({}, { timeoutMs: 150 })).rejects.toMatchObject({ code: "deadline_exceeded", retryable: true, details: { run_deadline: false, timeout_ms: 150 } });
  });

  it("does not call at all once the deadline has passed", async () => {
    const host = await fakeHost((_req, res) => json(res, 200, { ok: true, data: {} }));
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context(-1) });
    await expect(client.knowledge.list({})).rejects.toMatchObject({ code: "deadline_exceeded", retryable: false });
    expect(host.seen).toHaveLength(0);
  });

  it("rethrows the caller's abort reason when the run is cancelled mid-call", async () => {
    const host = await fakeHost(() => {});
    const cancel = new AbortController();
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context(), signal: cancel.signal });
    const pending = client.state.set({ scope: "conversation", key: "k", value: 1 });
    await expect.poll(() => host.seen.length).toBe(1);
    cancel.abort(new Error("cancelled by the host"));
    await expect(pending).rejects.toThrow("cancelled by the host");
  });

  it("streams models.stream as NDJSON lines and ends at final", async () => {
    const host = await fakeHost((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write('{"type":"delta","content":"Hel"}\n{"type":"delta",');
      res.write('"content":"lo"}\n');
      res.end(
        `${JSON.stringify({ type: "final", model_id: "m", message: { role: "assistant", content: "Hello", tool_calls: [] }, finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } })}\n`,
      );
    });
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context() });
    const lines = [];
    for await (const line of client.models.stream({ model_id: "m", messages: [{ role: "user", content: "hi" }] })) lines.push(line);
    expect(lines.map((l) => l.type)).toEqual(["delta", "delta", "final"]);
    expect(lines.flatMap((l) => (l.type === "delta" ? [l.content] : [])).join("")).toBe("Hello");
    expect(host.seen[0]!.url).toBe("/api/v1/runner-api/models/stream");
  });

  it("throws a stream's error line as HostApiError, and a stream cut short as a retryable runtime_error", async () => {
    let mode: "error" | "cut" = "error";
    const host = await fakeHost((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write('{"type":"chunk","offset":0,"data_base64":"aGk="}\n');
      if (mode === "error") res.end('{"type":"error","error":{"code":"not_found","message":"The artifact expired"}}\n');
      else res.end();
    });
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context() });
    const drain = async () => {
      const got = [];
      for await (const line of client.artifacts.openStream({ artifact_id: "a1" })) got.push(line);
      return got;
    };
    await expect(drain()).rejects.toMatchObject({ code: "not_found", message: "The artifact expired", retryable: false, status: 200 });
    mode = "cut";
    await expect(drain()).rejects.toMatchObject({ code: "runtime_error", retryable: true });
  });

  it("releases the connection when the caller stops reading a stream early", async () => {
    const host = await fakeHost((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write('{"type":"chunk","offset":0,"data_base64":"aGk="}\n'); // and never ends
    });
    const client = createHostClient({ hostUrl: host.url, secret: SECRET, context: context() });
    for await (const line of client.artifacts.openStream({ artifact_id: "a1" })) {
      expect(line.type).toBe("chunk");
      break;
    }
    expect(await host.seen[0]!.closedEarly).toBe(true);
  });
});
