import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getPool } from "@/server/db";
import { env } from "@/server/env";
import { bindRunner, registerRunner, runnersOverview } from "@/server/runner-host/service";
import { baseUrl, createTestUser } from "@/test/helpers";
import { getJson, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, delta, runCompleted } from "@/sdk/runner/results";
import type { AgentRunContext } from "@/sdk/runner/types";
import { BAD_MANIFESTS_INVALID_IDS, BAD_MANIFESTS_VALID_ID, startBadManifestsRunner } from "@/examples/runners/bad-manifests";
import { CANCELLABLE_RUNNER_ID, startCancellableRunner } from "@/examples/runners/cancellable";
import { ECHO_RUNNER_ID, startEchoRunner } from "@/examples/runners/echo";
import { HANGING_RUNNER_ID, startHangingRunner } from "@/examples/runners/hanging";
import { MISBEHAVING_EXPECTED_TEXT, MISBEHAVING_REJECTED_TEXTS, MISBEHAVING_RUNNER_ID, MISBEHAVING_STATE_KEY, MISBEHAVING_UNKNOWN_TYPE, startMisbehavingRunner } from "@/examples/runners/misbehaving";
import { startRunners } from "@/examples/runners/start";

// External runners over loopback, driven through the real AG-UI endpoint of the production
// server: the host discovers them, binds them per user, streams their results as AG-UI
// events and keeps history, results and limits exactly as for the built-in agent.

const SECRET = () => `runner-secret-${randomUUID()}`;
type Frame = { type: string } & Record<string, unknown>;

const RECORDER_ID = "plugin:dispatch-tests/recorder/default";
const contexts: AgentRunContext[] = [];
const recorder = defineRunner({
  manifest: {
    id: RECORDER_ID,
    name: "default",
    label: { en_US: "Recorder" },
    capabilities: { streaming: true },
    permissions: { models: ["invoke", "stream"], tools: ["detail"], history: ["page", "search"], storage: ["binding", "workspace"], platform_api: ["message.edit"] },
    context: { bootstrap: "current_event" },
    config_schema: [
      { name: "tone", label: { en_US: "Tone" }, type: "select", options: [{ name: "brief", label: { en_US: "Brief" } }, { name: "warm", label: { en_US: "Warm" } }], default: "brief" },
    ],
  },
  async *run(ctx) {
    contexts.push(ctx);
    yield delta("recorded");
    yield completed("recorded");
    yield runCompleted();
  },
});

const started: { close(): Promise<void> }[] = [];
async function start<T extends { url: string; close(): Promise<void> }>(p: Promise<T>): Promise<T> {
  const s = await p;
  started.push(s);
  return s;
}

async function userBoundTo(runnerId: string, opts: { config?: Record<string, unknown>; policy?: Record<string, unknown> } = {}) {
  const user = await createTestUser();
  await bindRunner({ runnerId, email: user.email, ...opts });
  return user;
}

async function streamRun(key: string, body: ReturnType<typeof runInput>): Promise<Frame[]> {
  const res = await postRun(key, body, { stream: true });
  expect(res.status).toBe(200);
  return (await collectSse(res)).map((f) => JSON.parse(f.data) as Frame);
}

const text = (frames: Frame[]) => frames.filter((f) => f.type === EventType.TEXT_MESSAGE_CONTENT).map((f) => f.delta).join("");

async function runRow(clientRunId: string) {
  const { rows } = await getPool().query(`select id, runner, binding_id, "authorization", event_id, status, error_code from runs where run_id = $1`, [clientRunId]);
  return rows[0] as { id: string; runner: string; binding_id: string; authorization: Record<string, unknown>; event_id: string; status: string; error_code: string | null };
}

async function results(runInternalId: string) {
  const { rows } = await getPool().query(`select idx, sequence, type, disposition, detail, data from runner_results where run_id = $1 order by idx`, [runInternalId]);
  return rows as { idx: number; sequence: number | null; type: string; disposition: string; detail: string | null; data: Record<string, unknown> }[];
}

let hanging: Awaited<ReturnType<typeof startHangingRunner>>;
let cancellable: Awaited<ReturnType<typeof startCancellableRunner>>;

beforeAll(async () => {
  const echo = await start(startEchoRunner({ secret: (echoSecret = SECRET()) }));
  await registerRunner({ url: echo.url, secret: echoSecret });
  const misbehaving = await start(startMisbehavingRunner({ secret: (misSecret = SECRET()) }));
  await registerRunner({ url: misbehaving.url, secret: misSecret });
  hanging = await start(startHangingRunner({ secret: (hangSecret = SECRET()) }));
  await registerRunner({ url: hanging.url, secret: hangSecret });
  cancellable = await start(startCancellableRunner({ secret: (cancelSecret = SECRET()) }));
  await registerRunner({ url: cancellable.url, secret: cancelSecret });
  const rec = await start(startRunners({ secret: (recSecret = SECRET()), runners: [recorder] }));
  await registerRunner({ url: rec.url, secret: recSecret });
});
let echoSecret: string, misSecret: string, hangSecret: string, cancelSecret: string, recSecret: string;

afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

describe("discovery", () => {
  it("skips invalid manifests with a warning and keeps the valid one", async () => {
    const secret = SECRET();
    const again = await start(startBadManifestsRunner({ secret }));
    const outcome = await registerRunner({ url: again.url, secret });
    expect(outcome.runnerIds).toEqual([BAD_MANIFESTS_VALID_ID]);
    expect(outcome.warnings.map((w) => w.runner_id)).toEqual([...BAD_MANIFESTS_INVALID_IDS]);
    expect(outcome.warnings[0]!.reason).toMatch(/surprise/);
    const overview = await runnersOverview();
    expect(overview.runners.map((r) => r.id)).toEqual(expect.arrayContaining([BAD_MANIFESTS_VALID_ID, ECHO_RUNNER_ID, "plugin:dispatch/builtin/agent"]));
    expect(overview.endpoints.find((e) => e.baseUrl === again.url)?.warnings).toHaveLength(3);
  });

  it("refuses an endpoint that is down or rejects the secret, and stores nothing", async () => {
    const down = await startEchoRunner({ secret: SECRET() });
    await down.close();
    await expect(registerRunner({ url: down.url, secret: SECRET() })).rejects.toThrow(/could not be reached/);
    const echoAgain = await start(startEchoRunner({ secret: SECRET() }));
    await expect(registerRunner({ url: echoAgain.url, secret: SECRET() })).rejects.toThrow(/refused the secret/);
    const { rows } = await getPool().query(`select 1 from runner_endpoints where base_url in ($1, $2)`, [down.url, echoAgain.url]);
    expect(rows).toHaveLength(0);
  });

  it("refuses loopback, unspecified, link-local and private hosts unless allowed, as it refuses a closed port", async () => {
    const listening = await start(startEchoRunner({ secret: SECRET() }));
    const closed = await startEchoRunner({ secret: SECRET() });
    await closed.close();
    const answer = async (url: string) => {
      const err = await registerRunner({ url, secret: SECRET() }).then(() => null, (e: Error) => e);
      return err?.message.replace(url, "<url>");
    };
    const port = new URL(listening.url).port;
    const allowed = env.RUNNER_ALLOWED_HOSTS;
    env.RUNNER_ALLOWED_HOSTS = [];
    let refused: string | undefined;
    try {
      refused = await answer(listening.url);
      expect(refused).toMatch(/could not be reached/);
      for (const url of [`http://localhost:${port}`, `http://0.0.0.0:${port}`, `http://[::1]:${port}`, `http://[::]:${port}`, "http://169.254.169.254", "http://10.0.0.1", `http://[::ffff:7f00:1]:${port}`]) {
        expect(await answer(url), url).toBe(refused);
      }
    } finally {
      env.RUNNER_ALLOWED_HOSTS = allowed;
    }
    // Allowed, but nothing listens: the same answer.
    expect(await answer(closed.url)).toBe(refused);
    expect(await answer("http://127.0.0.1:1")).toBe(refused);
    const { rows } = await getPool().query(`select 1 from runner_endpoints where base_url = $1`, [listening.url]);
    expect(rows).toHaveLength(0);
  });
});

describe("runs through an external runner", () => {
  it("streams the echo runner's answer over AG-UI and keeps it in history like the built-in agent's", async () => {
    const user = await userBoundTo(ECHO_RUNNER_ID);
    const body = runInput({}, "stream this back to me");
    const frames = await streamRun(user.apiKey, body);
    expect(frames[0]!.type).toBe(EventType.RUN_STARTED);
    expect(frames.at(-1)!.type).toBe(EventType.RUN_FINISHED);
    expect(frames.filter((f) => f.type === EventType.TEXT_MESSAGE_CONTENT).length).toBeGreaterThan(1);
    expect(text(frames)).toBe("stream this back to me");

    const run = await runRow(body.runId);
    expect(run).toMatchObject({ runner: ECHO_RUNNER_ID, status: "completed" });
    expect((await results(run.id)).every((r) => r.disposition === "applied")).toBe(true);
    const history = await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${body.threadId}`)).json();
    const contents = JSON.stringify(history);
    expect(contents).toContain("stream this back to me");
    const { rows } = await getPool().query(`select role, content from messages where thread_id = $1 order by seq`, [body.threadId]);
    expect(rows).toEqual([
      { role: "user", content: "stream this back to me" },
      { role: "assistant", content: "stream this back to me" },
    ]);
  });

  it("serves the Agent API from the same runner", async () => {
    const user = await userBoundTo(ECHO_RUNNER_ID);
    const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ input: [{ role: "user", content: [{ type: "text", text: "agent api says hi" }] }], stream: false }),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain("agent api says hi");
  });

  it("survives malformed, foreign, duplicate, unknown and oversize results and records each", async () => {
    const user = await userBoundTo(MISBEHAVING_RUNNER_ID);
    const body = runInput({}, "misbehave");
    const frames = await streamRun(user.apiKey, body);
    expect(frames.at(-1)!.type).toBe(EventType.RUN_FINISHED);
    expect(text(frames)).toBe(MISBEHAVING_EXPECTED_TEXT);
    for (const bad of MISBEHAVING_REJECTED_TEXTS) expect(JSON.stringify(frames)).not.toContain(bad);

    const run = await runRow(body.runId);
    const log = await results(run.id);
    const byDisposition = (d: string) => log.filter((r) => r.disposition === d);
    expect(byDisposition("duplicate")).toHaveLength(1);
    expect(byDisposition("ignored").map((r) => r.type)).toEqual([MISBEHAVING_UNKNOWN_TYPE]);
    const rejected = byDisposition("rejected").map((r) => r.detail ?? "");
    expect(rejected).toEqual(
      expect.arrayContaining([expect.stringMatching(/not a JSON line/), expect.stringMatching(/is not this run/), expect.stringMatching(/exceeds the 1048576-byte limit/), expect.stringMatching(/scope/)]),
    );
    const { rows } = await getPool().query(`select 1 from runner_state where key = $1`, [MISBEHAVING_STATE_KEY]);
    expect(rows).toHaveLength(0);
  });

  it("fails a run that hangs past its deadline with a retryable timeout, and the runner sees the abort", async () => {
    const user = await userBoundTo(HANGING_RUNNER_ID, { policy: { deadline_seconds: 2 } });
    const body = runInput({}, "take your time");
    const frames = await streamRun(user.apiKey, body);
    expect(frames.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: "DEADLINE_EXCEEDED" });
    await hanging.aborts.waitFor(1);
    const run = await runRow(body.runId);
    expect(run).toMatchObject({ status: "failed", error_code: "DEADLINE_EXCEEDED" });
    expect((await results(run.id)).at(-1)).toMatchObject({ type: "run.failed", disposition: "host", data: { code: "deadline_exceeded", retryable: true } });
  });

  it("reaches the runner when the run is cancelled and ends it as cancelled", async () => {
    const user = await userBoundTo(CANCELLABLE_RUNNER_ID);
    // An AG-UI 1.0 client: its cancelled run ends with RUN_FINISHED's outcome.
    const body = runInput({ protocolVersion: "1.0" }, "wait for it");
    const res = await postRun(user.apiKey, body, { stream: true });
    const frames: Frame[] = [];
    for await (const f of readSse(res)) {
      const frame = JSON.parse(f.data) as Frame;
      frames.push(frame);
      if (frame.type === EventType.TEXT_MESSAGE_CONTENT) {
        const cancel = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/cancel`, {
          method: "POST",
          headers: { authorization: `Bearer ${user.apiKey}` },
        });
        expect(cancel.status).toBeLessThan(300);
      }
    }
    expect(frames.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "cancelled" } });
    await cancellable.cancels.waitFor(1);
    const run = await runRow(body.runId);
    expect(run.status).toBe("cancelled");
    expect((await results(run.id)).at(-1)).toMatchObject({ type: "run.failed", disposition: "host", data: { code: "cancelled" } });
  });

  it("fails with a clear code when the bound runner is down", async () => {
    const secret = SECRET();
    const gone = await startRunners({ secret, runners: [defineRunner({ ...recorderWithId("plugin:dispatch-tests/gone/default") })] });
    await registerRunner({ url: gone.url, secret });
    await gone.close();
    const user = await userBoundTo("plugin:dispatch-tests/gone/default");
    const body = runInput({}, "anyone there?");
    const frames = await streamRun(user.apiKey, body);
    expect(frames.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: "runner.unreachable" });
    const ended = await waitForRunEnd(user.apiKey, body.runId);
    expect(ended.status).toBe("failed");
  });
});

function recorderWithId(id: string) {
  return { manifest: { ...recorder.manifest, id }, run: recorder.run };
}

describe("AgentRunContext", () => {
  it("names the scheduler as the source of a run a schedule started", async () => {
    const user = await userBoundTo(RECORDER_ID);
    const message = `scheduled ${randomUUID()}`;
    const res = await fetch(`${baseUrl()}/api/v1/schedules`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ message, runAt: new Date(Date.now() - 1000).toISOString(), timeZone: "Asia/Shanghai" }),
    });
    expect(res.status).toBe(201);
    await waitFor(() => contexts.some((c) => c.input.text === message), 20_000);
    const ctx = contexts.find((c) => c.input.text === message)!;
    expect(ctx.trigger).toMatchObject({ type: "message.received", source: "scheduler" });
    expect(ctx.event.source).toBe("scheduler");
    // The schedule's zone is the run's.
    expect(ctx.runtime.timezone).toBe("Asia/Shanghai");
  });

  it("is event-first: the current event and input, no inlined history, handles to pull more", async () => {
    const user = await userBoundTo(RECORDER_ID, { config: { tone: "warm" } });
    const first = runInput({}, "first message");
    await streamRun(user.apiKey, first);
    const second = runInput({ threadId: first.threadId }, "second message");
    await streamRun(user.apiKey, second);
    const ctx = contexts.at(-1)!;
    const run = await runRow(second.runId);

    expect(ctx.run_id).toBe(run.id);
    expect(ctx.trigger).toMatchObject({ type: "message.received", source: "api" });
    expect(ctx.event).toMatchObject({ event_type: "message.received", source: "ag-ui", source_event_type: "RunAgentInput", event_id: run.event_id });
    expect(ctx.event.raw_ref).toEqual({ kind: "run_input", id: second.runId });
    expect(JSON.stringify(ctx.event.data)).not.toContain("second message");
    expect(ctx.input.text).toBe("second message");
    expect(ctx.conversation).toMatchObject({ conversation_id: first.threadId, thread_id: first.threadId });
    expect(ctx.actor).toMatchObject({ actor_type: "user", actor_id: user.id });
    expect(ctx.bootstrap ?? null).toBeNull();
    expect(JSON.stringify(ctx)).not.toContain("first message");
    expect(ctx.context).toMatchObject({ event_seq: 2, transcript_seq: 3, has_history_before: true, inline_policy: { mode: "current_event", delivered_count: 0 } });
    expect(ctx.context.latest_cursor).toEqual(expect.any(String));
    expect(ctx.config).toEqual({ tone: "warm" });
    expect(ctx.runtime.deadline_at).toBeGreaterThan(Date.now() / 1000);
    expect(ctx.runtime.trace_id).toEqual(expect.any(String));
  });

  it("keeps the event id stable for the same entry", async () => {
    const user = await userBoundTo(RECORDER_ID);
    const body = runInput({}, "same entry");
    await streamRun(user.apiKey, body);
    const firstId = contexts.at(-1)!.event.event_id;
    // The same message delivered again as a new run (a client retry after the first ended).
    const retry = { ...body, runId: `run-${randomUUID()}` };
    await streamRun(user.apiKey, retry);
    expect(contexts.at(-1)!.event.event_id).toBe(firstId);
    const { rows } = await getPool().query(`select id, seq from agent_events where thread_id = $1`, [body.threadId]);
    expect(rows).toEqual([{ id: firstId, seq: 1 }]);
  });

  it("carries what the client asked for (model, sampling, tools, context, forwardedProps, state, locale), static references and timestamps in seconds", async () => {
    const user = await userBoundTo(RECORDER_ID);
    const weather = { name: "get_weather", description: "The weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
    const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        stream: false,
        temperature: 0.3,
        top_p: 0.8,
        max_tokens: 50,
        stop: "END",
        seed: 3,
        presence_penalty: 0.1,
        tools: [{ type: "function", function: weather }],
        input: [
          { role: "system", content: [{ type: "text", text: "Be brief." }] },
          { role: "user", content: [{ type: "text", text: "sampled" }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const viaAgentApi = contexts.at(-1)!;
    expect(viaAgentApi.input.text).toBe("sampled");
    expect(viaAgentApi.metadata.request).toEqual({
      protocol: "agent-api",
      model: inject("llmModel"),
      generation: { temperature: 0.3, top_p: 0.8, max_tokens: 50, stop: ["END"], seed: 3, presence_penalty: 0.1 },
      tools: [weather],
      context: [{ description: "Instructions from the client application (system message)", value: "Be brief." }],
      forwarded_props: null,
      state: null,
    });
    expect(viaAgentApi.resources.models[0]).toMatchObject({ model_id: inject("llmModel"), selected: true });
    expect(viaAgentApi.runtime.locale).toBe("en-US");
    // Seconds, as every timestamp of the protocol.
    expect(Math.abs(viaAgentApi.trigger.timestamp! - Date.now() / 1000)).toBeLessThan(600);
    expect(Math.abs(viaAgentApi.event.event_time! - Date.now() / 1000)).toBeLessThan(600);

    const body = runInput({ state: { step: 2 }, forwardedProps: { locale: "fr-FR" }, context: [{ description: "page", value: "/inbox" }] }, "ag-ui asks");
    await streamRun(user.apiKey, body);
    const viaAgUi = contexts.at(-1)!;
    expect(viaAgUi.runtime.locale).toBe("fr-FR");
    // The same runner, grant and tools in another conversation: the same static references.
    expect(viaAgUi.runtime.static_refs).toEqual(viaAgentApi.runtime.static_refs);
    expect(viaAgUi.runtime.static_refs).toMatchObject({ system_policy: { ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }, tool_schemas: { ref: expect.stringMatching(/^sha256:/) } });
    expect(viaAgUi.metadata.request).toMatchObject({
      protocol: "ag-ui",
      generation: {},
      state: { step: 2 },
      forwarded_props: { locale: "fr-FR" },
      context: [{ description: "page", value: "/inbox" }],
    });
    // The thread keeps the state its run ended with: a run without state continues from it, and so does its runner.
    await streamRun(user.apiKey, { ...runInput({}, "ag-ui again"), threadId: body.threadId });
    expect(contexts.at(-1)!.metadata.request).toMatchObject({ state: { step: 2 } });
  });

  it("grants exactly manifest permissions ∩ binding policy, frozen with the run", async () => {
    const user = await userBoundTo(RECORDER_ID, {
      policy: { models: { operations: ["invoke"] }, history: { operations: ["page"] }, storage: { areas: ["binding"] }, platform_api: { actions: ["message.edit"] } },
    });
    const body = runInput({}, "what may I use?");
    await streamRun(user.apiKey, body);
    const ctx = contexts.at(-1)!;
    expect(ctx.resources.models.map((m) => m.operations)).toEqual([["invoke"]]);
    expect(ctx.resources.tools).toEqual([expect.objectContaining({ tool_name: "project_cli", operations: ["detail"] })]);
    expect(ctx.resources.history).toEqual({ operations: ["page"], conversation_ids: [body.threadId] });
    expect(ctx.resources.storage.areas).toEqual(["binding"]);
    expect(ctx.resources.knowledge_bases).toEqual([]);
    expect(ctx.resources.platform_capabilities).toEqual({ actions: ["message.edit"] });
    expect(ctx.context.available_apis).toMatchObject({ history_page: true, history_search: false, storage: true, event_get: false });
    const run = await runRow(body.runId);
    expect(run.authorization).toMatchObject({
      runner_id: RECORDER_ID,
      binding_id: run.binding_id,
      models: { operations: ["invoke"] },
      history: { operations: ["page"], conversation_ids: [body.threadId] },
      platform_api: { actions: ["message.edit"] },
    });
  });

  it("rejects a binding whose config does not match the runner's config_schema", async () => {
    const user = await createTestUser();
    await expect(bindRunner({ runnerId: RECORDER_ID, email: user.email, config: { tone: "loud" } })).rejects.toThrow(/config_schema: tone: must be one of brief, warm/);
    await expect(bindRunner({ runnerId: RECORDER_ID, email: user.email, config: { volume: 3 } })).rejects.toThrow(/config_schema/);
    await expect(bindRunner({ runnerId: "plugin:nobody/none/none", email: user.email })).rejects.toThrow(/not found/);
  });
});
