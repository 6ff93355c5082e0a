import { afterEach, describe, expect, it } from "vitest";
import { runFailed, type ResultDraft } from "./results";
import { defineRunner, type RunFunction } from "./define-runner";
import { ndjsonLines } from "./ndjson";
import { createRunnerServer, type RunnerServer } from "./server";
import { testRunContext } from "./testing";
import { AbortProbe, untilAborted } from "../../examples/runners/abort-probe";

const SECRET = "test-runner-secret-0123456789";
const open: RunnerServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close(100)));
});

const manifest = (name: string) => ({
  id: `plugin:sdk-test/${name}/default`,
  name: "default",
  label: { en_US: name },
  capabilities: { streaming: true },
  permissions: {},
  context: {},
});

async function serve(runs: Record<string, RunFunction>): Promise<{ url: string; server: RunnerServer }> {
  const server = createRunnerServer({
    secret: SECRET,
    runners: Object.entries(runs).map(([name, run]) => defineRunner({ manifest: manifest(name), run })),
    logger: { warn: () => {}, error: () => {} },
  });
  open.push(server);
  return { url: await server.listen(0), server };
}

const post = (url: string, body: unknown, opts: { secret?: string; signal?: AbortSignal } = {}) =>
  fetch(`${url}/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${opts.secret ?? SECRET}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: opts.signal,
  });

const runRequest = (name: string, text = "hi") => ({ runner_id: `plugin:sdk-test/${name}/default`, runner_name: "default", context: testRunContext(text) });

async function readAll(res: Response): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const line of ndjsonLines(res.body!)) out.push(JSON.parse(line));
  return out;
}

describe("runner server", () => {
  it("refuses requests without the runner secret on both routes", async () => {
    const { url } = await serve({ ok: async function* () {} });
    for (const headers of <Record<string, string>[]>[{}, { authorization: "Bearer wrong" }, { authorization: `Basic ${SECRET}` }, { authorization: `Bearer ${SECRET}x` }]) {
      const list = await fetch(`${url}/runners`, { headers });
      expect(list.status).toBe(401);
      expect(list.headers.get("www-authenticate")).toBe("Bearer");
      expect(await list.json()).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
    }
    const run = await post(url, runRequest("ok"), { secret: "nope" });
    expect(run.status).toBe(401);
    const listed = await fetch(`${url}/runners`, { headers: { authorization: `Bearer ${SECRET}` } });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { runners: { id: string; capabilities: { interrupt: boolean } }[] };
    expect(body.runners.map((r) => r.id)).toEqual(["plugin:sdk-test/ok/default"]);
    expect(body.runners[0]!.capabilities.interrupt).toBe(false); // defaults filled in
  });

  it("answers 404 for an unknown runner and 400 for a malformed request", async () => {
    const { url } = await serve({ ok: async function* () {} });
    const unknown = await post(url, runRequest("missing"));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const notJson = await post(url, "{nope");
    expect(notJson.status).toBe(400);
    const invalid = await post(url, { runner_id: "plugin:sdk-test/ok/default", runner_name: "default", context: { run_id: "x" } });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { message: string } }).error.message).toMatch(/context\.trigger/);
  });

  it("streams NDJSON with run_id, sequence from 0 and timestamps stamped, and completes a run that forgot to", async () => {
    const { url } = await serve({
      chat: async function* (ctx) {
        yield { type: "message.delta", data: { chunk: { content: `a${ctx.input.text}` } } };
        yield { type: "message.delta", data: { chunk: { content: "b\nc" } } };
      },
    });
    const req = runRequest("chat", "ü");
    const res = await post(url, req);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const text = await res.text();
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.run_id, l.sequence, l.type])).toEqual([
      [req.context.run_id, 0, "message.delta"],
      [req.context.run_id, 1, "message.delta"],
      [req.context.run_id, 2, "run.completed"],
    ]);
    expect(lines[0].data.chunk.content).toBe("aü");
    expect(lines[1].data.chunk.content).toBe("b\nc"); // a newline inside a value never splits a line
    for (const l of lines) expect(l.timestamp).toBeGreaterThan(1_600_000_000_000);
  });

  it("keeps explicit sequence numbers and continues after the highest", async () => {
    const { url } = await serve({
      seq: async function* () {
        const d: ResultDraft = { type: "x.custom", data: {} };
        yield d;
        yield { ...d, sequence: 5 };
        yield { ...d, sequence: 5 };
        yield d;
      },
    });
    const lines = await readAll(await post(url, runRequest("seq")));
    expect(lines.map((l) => l.sequence)).toEqual([0, 5, 5, 6, 7]);
  });

  it("stops at the first terminal result and runs the runner's cleanup", async () => {
    let cleaned = false;
    const { url } = await serve({
      twice: async function* () {
        try {
          yield runFailed("quota", "out of quota", { retryable: true });
          yield { type: "message.delta", data: { chunk: { content: "after the end" } } };
        } finally {
          cleaned = true;
        }
      },
    });
    const lines = await readAll(await post(url, runRequest("twice")));
    expect(lines.map((l) => l.type)).toEqual(["run.failed"]);
    expect(lines[0]!.data).toEqual({ code: "quota", message: "out of quota", retryable: true });
    expect(cleaned).toBe(true);
  });

  it("turns a thrown error into a final run.failed with code runner.error", async () => {
    const { url } = await serve({
      boom: async function* () {
        yield { type: "message.delta", data: { chunk: { content: "partial" } } };
        throw new Error("the upstream agent is down");
      },
    });
    const lines = await readAll(await post(url, runRequest("boom")));
    expect(lines.map((l) => l.type)).toEqual(["message.delta", "run.failed"]);
    expect(lines[1]).toMatchObject({ sequence: 1, data: { code: "runner.error", message: "the upstream agent is down", retryable: false } });
  });

  it("fires the run's AbortSignal when the host closes the connection", async () => {
    const aborts = new AbortProbe();
    const { url, server } = await serve({
      wait: async function* (_ctx, { signal }) {
        yield { type: "message.delta", data: { chunk: { content: "started" } } };
        await untilAborted(signal);
        aborts.record();
        yield runFailed("cancelled", "too late to be read");
      },
    });
    const client = new AbortController();
    const res = await post(url, runRequest("wait"), { signal: client.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"started"');
    expect(server.handler.activeRuns).toBe(1);
    client.abort();
    await aborts.waitFor(1);
    expect(aborts.count).toBe(1);
  });

  it("ends runs with run.failed cancelled when the server shuts down while the host still listens", async () => {
    let sawAbort = false;
    const { url, server } = await serve({
      forever: async function* (_ctx, { signal }) {
        yield { type: "message.delta", data: { chunk: { content: "working" } } };
        await untilAborted(signal);
        sawAbort = true;
      },
    });
    const res = await post(url, runRequest("forever"));
    const reader = res.body!.getReader();
    await reader.read();
    const closing = server.close(5000);
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    await closing;
    open.splice(open.indexOf(server), 1);
    expect(sawAbort).toBe(true);
    const last = JSON.parse(rest.trim().split("\n").at(-1)!);
    expect(last).toMatchObject({ type: "run.failed", sequence: 1, data: { code: "cancelled", message: "the runner server is shutting down" } });
  });

  it("waits for the host to read before producing more (backpressure)", async () => {
    let produced = 0;
    const big = "y".repeat(256 * 1024);
    const { url } = await serve({
      flood: async function* () {
        for (let i = 0; i < 400; i++) {
          produced = i + 1;
          yield { type: "message.delta", data: { chunk: { content: big } } };
        }
      },
    });
    const res = await post(url, runRequest("flood"));
    const reader = res.body!.getReader();
    await reader.read();
    // 400 x 256 KiB = 100 MiB could never sit in socket buffers: if the server ignored
    // backpressure the generator would finish at once. Reading everything proves it resumes.
    const producedBeforeReading = produced;
    let bytes = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
    expect(producedBeforeReading).toBeLessThan(400);
    expect(produced).toBe(400);
    expect(bytes).toBeGreaterThan(399 * big.length);
  });
});

describe("defineRunner", () => {
  it("refuses a manifest the host would skip, naming the field", () => {
    expect(() => defineRunner({ manifest: { ...manifest("x"), id: "echo" }, run: async function* () {} })).toThrow(/id: must look like plugin:author/);
    expect(() => defineRunner({ manifest: { ...manifest("x"), extra: 1 } as never, run: async function* () {} })).toThrow(/Unrecognized key/);
  });
});
