import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, runCompleted } from "@/sdk/runner/results";
import type { AgentRunContext } from "@/sdk/runner/types";
import { startRunners } from "@/examples/runners/start";

// The trace a run joins, with no collector configured (the test server exports no spans): the
// client's W3C `traceparent` (else a fresh trace) reaches the external runner (its `traceparent`
// header and run context's runtime.trace_id) and the model server, and the client is told the
// trace id: the `traceresponse` header of the answer that started the run, and the run's status.

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

const RUNNER_ID = "plugin:dispatch-tests/trace-propagation/default";
let runner: { url: string; close(): Promise<void> } | undefined;
let proxy: http.Server | undefined;
const headersByRun = new Map<string, http.IncomingHttpHeaders>();

/** A pass-through in front of the runner that keeps the headers of each POST /run by its run id. */
async function recordingProxy(target: string): Promise<string> {
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST" && req.url === "/run") headersByRun.set((JSON.parse(body.toString()) as { context: { run_id: string } }).context.run_id, req.headers);
      const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

const contexts: AgentRunContext[] = [];
beforeAll(async () => {
  baseUrl();
  const secret = `runner-secret-${randomUUID()}`;
  runner = await startRunners({
    secret,
    runners: [
      defineRunner({
        manifest: { id: RUNNER_ID, name: "default", label: { en_US: "Trace propagation" }, capabilities: {}, permissions: {}, context: { bootstrap: "current_event" } },
        async *run(ctx) {
          contexts.push(ctx);
          yield completed("traced");
          yield runCompleted();
        },
      }),
    ],
  });
  await registerRunner({ url: await recordingProxy(runner.url), secret });
}, 90_000);

afterAll(async () => {
  await runner?.close();
  proxy?.close();
});

/** Streams a run of the seed endpoint, with `traceparent` when given; the answer's traceresponse and the run. */
async function streamedRun(apiKey: string, text: string, traceparent?: string) {
  const body = runInput({}, text);
  const res = await fetch(`${baseUrl()}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json", accept: "text/event-stream", ...(traceparent ? { traceparent, tracestate: "vendor=kept" } : {}) },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const traceResponse = res.headers.get("traceresponse");
  const frames = await collectSse(res);
  expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED" });
  const taskId = res.headers.get("x-task-id")!;
  const status = (await (await getJson(apiKey, `/api/v1/agent/runs/${body.runId as string}`)).json()) as { traceId: string | null };
  return { traceResponse, taskId, status };
}

describe("trace context without a collector", () => {
  it("carries the client's traceparent to the external runner, and tells the client the trace id", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const traceId = randomBytes(16).toString("hex");
    const clientSpan = randomBytes(8).toString("hex");
    const { traceResponse, taskId, status } = await streamedRun(user.apiKey, "to the runner", `00-${traceId}-${clientSpan}-01`);

    expect(traceResponse).toMatch(TRACE_PARENT);
    expect(TRACE_PARENT.exec(traceResponse!)![1]).toBe(traceId);
    expect(status.traceId).toBe(traceId);
    const sent = headersByRun.get(taskId)!;
    expect(TRACE_PARENT.exec(String(sent.traceparent))?.[1]).toBe(traceId);
    expect(sent.tracestate).toBe("vendor=kept");
    expect(contexts.find((c) => c.run_id === taskId)!.runtime.trace_id).toBe(traceId);
  });

  it("starts a fresh trace for a run that came without one, the same one everywhere", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const { traceResponse, taskId, status } = await streamedRun(user.apiKey, "no trace of my own");

    const traceId = TRACE_PARENT.exec(traceResponse ?? "")?.[1];
    expect(traceId).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    expect(status.traceId).toBe(traceId);
    expect(TRACE_PARENT.exec(String(headersByRun.get(taskId)!.traceparent))?.[1]).toBe(traceId);
    expect(contexts.find((c) => c.run_id === taskId)!.runtime.trace_id).toBe(traceId);
  });

  it("carries the trace to the model server, and answers it on the 202 of a run that is not streamed", async () => {
    const user = await createTestUser();
    const traceId = randomBytes(16).toString("hex");
    const word = `traced-${randomUUID().slice(0, 8)}`;
    const body = runInput({}, `hello ${word}`);
    const res = await fetch(`${baseUrl()}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json", traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(202);
    expect(TRACE_PARENT.exec(res.headers.get("traceresponse") ?? "")?.[1]).toBe(traceId);
    expect(((await res.json()) as { traceId: string }).traceId).toBe(traceId);

    const events = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId as string}/events`, { headers: { ...bearer(user.apiKey), accept: "text/event-stream" } });
    await collectSse(events);
    const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${word}`)).json()) as { traceparent: string | null }[];
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(TRACE_PARENT.exec(call.traceparent ?? "")?.[1]).toBe(traceId);
  });

  it("answers the trace id on the AG-UI door and the Agent API too, and the model server hears it", async () => {
    const user = await createTestUser();
    const doors = [
      { path: "/api/v1/ag-ui", accept: "text/event-stream", body: (word: string) => runInput({}, `hello ${word}`) },
      { path: "/api/v1/agent/process", accept: "application/json", body: (word: string) => ({ input: [{ role: "user", type: "message", content: [{ type: "text", text: `hello ${word}` }] }], stream: false }) },
    ];
    for (const door of doors) {
      const traceId = randomBytes(16).toString("hex");
      const word = `door-${randomUUID().slice(0, 8)}`;
      const res = await fetch(`${baseUrl()}${door.path}`, {
        method: "POST",
        headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: door.accept, traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
        body: JSON.stringify(door.body(word)),
      });
      expect(res.status, door.path).toBe(200);
      expect(TRACE_PARENT.exec(res.headers.get("traceresponse") ?? "")?.[1], door.path).toBe(traceId);
      await res.text();
      const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${word}`)).json()) as { traceparent: string | null }[];
      expect(calls.map((c) => TRACE_PARENT.exec(c.traceparent ?? "")?.[1]), door.path).toEqual([traceId]);
    }
  });
});
