import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { findLedgerRows } from "@/server/usage/repository";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, delta, runCompleted } from "@/sdk/runner/results";
import type { AgentRunContext } from "@/sdk/runner/types";
import { startRunners } from "@/examples/runners/start";

// Traces over OTLP/HTTP to an in-process receiver: a server instance started with
// OTEL_EXPORTER_OTLP_ENDPOINT exports the span tree of a run with a tool call (request → run →
// model steps, tool call, the database's statements) and of a run on an external runner (run →
// runner call), each continuing the trace of the client's `traceparent`; the runner gets that
// trace in its `traceparent` header and its run context's trace_id.

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; arrayValue?: { values: OtlpValue[] } };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: { key: string; value: OtlpValue }[] };
const spans: OtlpSpan[] = [];
const contentTypes = new Set<string>();

const receiver = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString()));
  req.on("end", () => {
    contentTypes.add(String(req.headers["content-type"]));
    const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const r of payload.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});

const runnerHeaders: http.IncomingHttpHeaders[] = [];
const contexts: AgentRunContext[] = [];
const RUNNER_ID = "plugin:dispatch-tests/traced/default";
const traced = defineRunner({
  manifest: { id: RUNNER_ID, name: "default", label: { en_US: "Traced" }, capabilities: { streaming: true }, permissions: {}, context: { bootstrap: "current_event" } },
  async *run(ctx) {
    contexts.push(ctx);
    yield delta("traced");
    yield completed("traced");
    yield runCompleted({ usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 } });
  },
});

let server: ExtraServer | undefined;
let runner: { url: string; close(): Promise<void> } | undefined;
let proxy: http.Server | undefined;

/** A pass-through in front of the runner that keeps the headers of each POST /run. */
async function recordingProxy(target: string): Promise<string> {
  proxy = http.createServer((req, res) => {
    if (req.method === "POST" && req.url === "/run") runnerHeaders.push(req.headers);
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  baseUrl();
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  server = await startExtraServer({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_SERVICE_NAME: "dispatch-test",
  });
  const secret = `runner-secret-${randomUUID()}`;
  runner = await startRunners({ secret, runners: [traced] });
  await registerRunner({ url: await recordingProxy(runner.url), secret });
}, 90_000);

afterAll(async () => {
  server?.child.kill("SIGTERM");
  await runner?.close();
  proxy?.close();
  receiver.close();
});

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : v?.arrayValue ? v.arrayValue.values.map((x) => x.stringValue) : v?.boolValue);
};

async function tracedRun(key: string, text: string) {
  const traceId = randomBytes(16).toString("hex");
  const clientSpanId = randomBytes(8).toString("hex");
  const body = runInput({}, text);
  const res = await fetch(`${server!.url}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", accept: "text/event-stream", traceparent: `00-${traceId}-${clientSpanId}-01` },
    body: JSON.stringify(body),
  });
  const frames = await collectSse(res);
  return { traceId, clientSpanId, body, finished: JSON.parse(frames.at(-1)!.data) as { type: string; usage?: Record<string, unknown>[] } };
}

/** The trace's spans once one named `last` has arrived (spans are exported as they end). */
async function traceOf(traceId: string, last: RegExp): Promise<OtlpSpan[]> {
  await waitFor(() => spans.some((s) => s.traceId === traceId && last.test(s.name)), 20_000);
  return spans.filter((s) => s.traceId === traceId);
}

describe("OpenTelemetry traces", () => {
  it("export a run with a tool call as one tree under the client's trace: request, run, model steps, tool call and database time", async () => {
    const user = await createTestUser();
    const { traceId, clientSpanId, finished } = await tracedRun(user.apiKey, '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]] what is on');
    expect(finished.type).toBe("RUN_FINISHED");
    const tree = await traceOf(traceId, /^db finish_run$/);
    expect([...contentTypes]).toEqual(["application/json"]);

    const request = tree.find((s) => s.name === "POST /api/v1/agent/runs")!;
    expect(request.parentSpanId).toBe(clientSpanId);
    const run = tree.find((s) => s.name.startsWith("invoke_agent"))!;
    expect(run.parentSpanId).toBe(request.spanId);
    expect(attr(run, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(run, "dispatch.run.status")).toBe("completed");
    expect(attr(run, "gen_ai.usage.input_tokens")).toBe(finished.usage![0]!.inputTokens);

    const steps = tree.filter((s) => s.name.startsWith("chat "));
    expect(steps.length).toBe(2);
    for (const step of steps) {
      expect(step.parentSpanId).toBe(run.spanId);
      expect(attr(step, "gen_ai.request.model")).toBe(finished.usage![0]!.model);
      expect(attr(step, "gen_ai.usage.input_tokens")).toEqual(expect.any(Number));
    }
    expect(steps.map((s) => attr(s, "gen_ai.response.finish_reasons"))).toEqual([["tool-calls"], ["stop"]]);

    const tool = tree.find((s) => s.name === "execute_tool project_cli")!;
    expect(tool.parentSpanId).toBe(run.spanId);
    expect({ module: attr(tool, "dispatch.tool.module"), method: attr(tool, "dispatch.tool.method"), status: attr(tool, "dispatch.tool.status") }).toEqual({
      module: "calendar",
      method: "read",
      status: "ok",
    });

    expect(tree.find((s) => s.name === "db dispatch_accept_run")!.parentSpanId).toBe(request.spanId);
    expect(tree.find((s) => s.name === "db finish_run")!.parentSpanId).toBe(run.spanId);
  });

  it("carry the trace to an external runner in its traceparent header and run context, with the runner's usage in the ledger", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const { traceId, finished } = await tracedRun(user.apiKey, "to the runner");
    expect(finished.usage).toEqual([{ model: RUNNER_ID, inputTokens: 7, outputTokens: 3, totalTokens: 10 }]);
    const tree = await traceOf(traceId, /^db finish_run$/);

    const run = tree.find((s) => s.name.startsWith("invoke_agent"))!;
    const call = tree.find((s) => s.name === `runner ${RUNNER_ID}`)!;
    expect(call.parentSpanId).toBe(run.spanId);
    expect(attr(call, "gen_ai.agent.id")).toBe(RUNNER_ID);

    const [, sentTrace, sentParent] = String(runnerHeaders.at(-1)!.traceparent).split("-");
    expect(sentTrace).toBe(traceId);
    expect(sentParent).toBe(call.spanId);
    expect(contexts.at(-1)!.runtime.trace_id).toBe(traceId);

    const ledger = await findLedgerRows({ from: new Date().toISOString().slice(0, 10), to: new Date().toISOString().slice(0, 10), userId: user.id });
    expect(ledger).toMatchObject([{ runner: RUNNER_ID, model: RUNNER_ID, runs: 1, inputTokens: 7, outputTokens: 3, totalTokens: 10 }]);
  });
});
