import { createHash, randomBytes, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { withTransaction, getPool } from "@/server/db";
import { appendMessage, recordEntryEvent } from "@/test/thread-fixtures";
import { addDocument } from "@/server/knowledge/service/documents";
import { createKnowledgeBase } from "@/server/knowledge/service/knowledge-bases";
import { baseUrl, createTestUser } from "@/test/helpers";
import { createRunnerArtifact } from "../artifact-store";
import { callHost, createBinding, createEndpoint, endRun, ndjsonLines, startRunSession, waitForAuditRows, type RunSessionFixture, type TestEndpoint } from "./test-fixtures";

// Every host API action doing its job over real HTTP against the production server: the
// fake OpenAI-compatible LLM behind models/*, the real project_cli behind tools/call, the
// real stores behind the rest; and the audit rows the calls leave.

let user: Awaited<ReturnType<typeof createTestUser>>;
let endpoint: TestEndpoint;
let bindingId: string;
let run: RunSessionFixture;
let modelId: string;

async function ok<T = Record<string, unknown>>(action: string, params: Record<string, unknown>, r: RunSessionFixture = run): Promise<T> {
  const answer = await callHost(endpoint.secret, action, { run_id: r.id, ...params });
  expect(answer.body, answer.text).toMatchObject({ ok: true });
  expect(answer.status).toBe(200);
  return answer.body.data as T;
}

async function failure(action: string, params: Record<string, unknown>, r: RunSessionFixture = run) {
  const answer = await callHost(endpoint.secret, action, { run_id: r.id, ...params });
  expect(answer.body.ok, answer.text).toBe(false);
  return { status: answer.status, ...answer.body.error! };
}

beforeAll(async () => {
  user = await createTestUser();
  endpoint = await createEndpoint();
  bindingId = await createBinding({ endpoint, userId: user.id });
  run = await startRunSession({ userId: user.id, endpoint, bindingId, text: "hello there, plan the offsite" });
  modelId = inject("llmModel");
});

describe("state", () => {
  it("sets, reads and deletes a value per scope, keyed by this run's ids", async () => {
    expect(await ok("state/get", { scope: "conversation", key: "session.id" })).toEqual({ scope: "conversation", key: "session.id", found: false, value: null });
    expect(await ok("state/set", { scope: "conversation", key: "session.id", value: { external: "abc", n: 2 } })).toMatchObject({ size: 24 });
    expect(await ok("state/set", { scope: "actor", key: "session.id", value: "actor value" })).toMatchObject({ scope: "actor" });
    expect(await ok("state/get", { scope: "conversation", key: "session.id" })).toMatchObject({ found: true, value: { external: "abc", n: 2 } });
    expect(await ok("state/get", { scope: "actor", key: "session.id" })).toMatchObject({ found: true, value: "actor value" });
    const { rows } = await getPool().query(`select scope, scope_id from runner_state where binding_id = $1 order by scope`, [bindingId]);
    expect(rows).toEqual([
      { scope: "actor", scope_id: user.id },
      { scope: "conversation", scope_id: run.threadId },
    ]);
    expect(await ok("state/delete", { scope: "conversation", key: "session.id" })).toMatchObject({ deleted: true });
    expect(await ok("state/delete", { scope: "conversation", key: "session.id" })).toMatchObject({ deleted: false });
    expect(await ok("state/get", { scope: "conversation", key: "session.id" })).toMatchObject({ found: false });
  });

  it("refuses a value over 256 KiB and writes nothing", async () => {
    const err = await failure("state/set", { scope: "binding", key: "big", value: "x".repeat(300 * 1024) });
    expect(err).toMatchObject({ code: "payload_too_large", status: 413 });
    const { rows } = await getPool().query(`select count(*)::int as n from runner_state where binding_id = $1 and key = 'big'`, [bindingId]);
    expect(rows[0].n).toBe(0);
  });

  it("says which parameter is wrong, by its path", async () => {
    const err = await failure("state/set", { scope: "conversation", key: "bad key!", value: 1 });
    expect(err).toMatchObject({ code: "invalid_argument", status: 400 });
    expect(err.message).toContain("key:");
    expect(err.details).toMatchObject({ issues: [{ path: "key" }] });
  });
});

describe("storage", () => {
  it("stores blobs per area, lists them by prefix in key order, deletes them", async () => {
    const blob = randomBytes(1000);
    for (const key of ["ckpt/2", "ckpt/1", "notes", "ckpt/10"]) {
      await ok("storage/set", { area: "plugin", key, value_base64: blob.toString("base64") });
    }
    await ok("storage/set", { area: "workspace", key: "ckpt/9", value_base64: "aGk=" });
    const listed = await ok<{ items: { key: string; size: number }[]; truncated: boolean }>("storage/list", { area: "plugin", prefix: "ckpt/" });
    expect(listed.items.map((i) => i.key)).toEqual(["ckpt/1", "ckpt/10", "ckpt/2"]);
    expect(listed.items.every((i) => i.size === 1000)).toBe(true);
    expect(listed.truncated).toBe(false);
    expect((await ok<{ items: unknown[]; truncated: boolean }>("storage/list", { area: "plugin", limit: 2 })).truncated).toBe(true);
    const got = await ok<{ value_base64: string; found: boolean }>("storage/get", { area: "plugin", key: "ckpt/1" });
    expect(Buffer.from(got.value_base64, "base64").equals(blob)).toBe(true);
    expect(await ok("storage/get", { area: "binding", key: "ckpt/1" })).toMatchObject({ found: false, value_base64: null });
    expect(await ok("storage/delete", { area: "plugin", key: "ckpt/1" })).toMatchObject({ deleted: true });
    expect(await ok("storage/get", { area: "plugin", key: "ckpt/1" })).toMatchObject({ found: false });
    const owners = await getPool().query(`select distinct area, owner_key from runner_storage where owner_key = any($1::text[]) order by area`, [[endpoint.id, user.id]]);
    expect(owners.rows).toEqual([
      { area: "plugin", owner_key: endpoint.id },
      { area: "workspace", owner_key: user.id },
    ]);
  });

  it("shares the plugin area across the endpoint's runs and refuses values over 512 KiB", async () => {
    const second = await startRunSession({ userId: user.id, endpoint, bindingId });
    expect(await ok("storage/get", { area: "plugin", key: "notes" }, second)).toMatchObject({ found: true, size: 1000 });
    await endRun(second.id);
    const err = await failure("storage/set", { area: "plugin", key: "huge", value_base64: randomBytes(600 * 1024).toString("base64") });
    expect(err).toMatchObject({ code: "payload_too_large", status: 413 });
  });
});

describe("artifacts", () => {
  let bytes: Buffer;
  let artifactId: string;

  beforeAll(async () => {
    bytes = randomBytes(150_000);
    artifactId = (await createRunnerArtifact({ userId: user.id, threadId: run.threadId, runId: run.id, runnerId: endpoint.runnerId, name: "data.bin", mimeType: "application/octet-stream", bytes }))
      .id;
  });

  it("describes an artifact of the conversation", async () => {
    const { artifact } = await ok<{ artifact: Record<string, unknown> }>("artifacts/metadata", { artifact_id: artifactId });
    expect(artifact).toMatchObject({ artifact_id: artifactId, name: "data.bin", mime_type: "application/octet-stream", size: 150_000, sha256: createHash("sha256").update(bytes).digest("hex") });
  });

  it("reads ranges, with eof at the end", async () => {
    const first = await ok<{ data_base64: string; length: number; eof: boolean }>("artifacts/read_range", { artifact_id: artifactId });
    expect(first).toMatchObject({ offset: 0, length: 65536, size: 150_000, eof: false });
    expect(Buffer.from(first.data_base64, "base64").equals(bytes.subarray(0, 65536))).toBe(true);
    const last = await ok<{ data_base64: string; eof: boolean }>("artifacts/read_range", { artifact_id: artifactId, offset: 140_000, length: 65536 });
    expect(last).toMatchObject({ length: 10_000, eof: true });
    expect(Buffer.from(last.data_base64, "base64").equals(bytes.subarray(140_000))).toBe(true);
    expect(await failure("artifacts/read_range", { artifact_id: artifactId, offset: 150_001 })).toMatchObject({ code: "invalid_argument" });
    expect(await failure("artifacts/read_range", { artifact_id: artifactId, length: 65537 })).toMatchObject({ code: "invalid_argument" });
  });

  it("streams the whole artifact as NDJSON chunks and a checksum", async () => {
    const answer = await callHost(endpoint.secret, "artifacts/open_stream", { run_id: run.id, artifact_id: artifactId });
    expect(answer.contentType).toContain("application/x-ndjson");
    const lines = ndjsonLines(answer.text);
    const chunks = lines.filter((l) => l.type === "chunk");
    expect(chunks.map((c) => c.offset)).toEqual([0, 65536, 131072]);
    expect(Buffer.concat(chunks.map((c) => Buffer.from(c.data_base64 as string, "base64"))).equals(bytes)).toBe(true);
    expect(lines.at(-1)).toEqual({ type: "end", size: 150_000, sha256: createHash("sha256").update(bytes).digest("hex"), mime_type: "application/octet-stream" });
  });

  it("treats an expired artifact as not found", async () => {
    const expired = await createRunnerArtifact({ userId: user.id, threadId: run.threadId, runId: run.id, runnerId: endpoint.runnerId, name: null, mimeType: "text/plain", bytes: Buffer.from("old") });
    await getPool().query(`update artifacts set expires_at = now() - interval '1 minute' where id = $1`, [expired.id]);
    expect(await failure("artifacts/metadata", { artifact_id: expired.id })).toMatchObject({ code: "not_found", status: 404 });
    const stream = await callHost(endpoint.secret, "artifacts/open_stream", { run_id: run.id, artifact_id: expired.id });
    expect(stream.status).toBe(404);
  });
});

describe("history", () => {
  let threadRun: RunSessionFixture;

  beforeAll(async () => {
    threadRun = await startRunSession({ userId: user.id, endpoint, bindingId, text: "first question" });
    for (let i = 2; i <= 7; i++) {
      await appendMessage({ threadId: threadRun.threadId, role: i % 2 === 0 ? "assistant" : "user", messageId: `m${i}`, runId: threadRun.id, content: `message ${i} about kangaroos ${i === 5 ? "袋鼠" : ""}`, metadata: { secret_payload: "raw" } });
    }
    await appendMessage({ threadId: threadRun.threadId, role: "tool", messageId: "t8", runId: threadRun.id, content: "{}", metadata: { tool_call_id: "call_1", tool_agent_output: { tool_name: "project_cli" } } });
  });

  it("pages backward from the newest with opaque cursors, and forward again", async () => {
    type Page = { items: { seq: number; cursor: string; role: string; content: string }[]; has_more: boolean; before_cursor: string; after_cursor: string };
    const newest = await ok<Page>("history/page", { limit: 3 }, threadRun);
    expect(newest.items.map((i) => i.seq)).toEqual([6, 7, 8]);
    expect(newest.has_more).toBe(true);
    expect(newest.items[2]).toMatchObject({ role: "tool", tool_call_id: "call_1", tool_name: "project_cli", run_id: threadRun.id });
    expect(JSON.stringify(newest)).not.toContain("secret_payload");
    const older = await ok<Page>("history/page", { limit: 3, before_cursor: newest.before_cursor }, threadRun);
    expect(older.items.map((i) => i.seq)).toEqual([3, 4, 5]);
    const oldest = await ok<Page>("history/page", { limit: 3, before_cursor: older.before_cursor }, threadRun);
    expect(oldest.items.map((i) => i.seq)).toEqual([1, 2]);
    expect(oldest.has_more).toBe(false);
    expect(oldest.items[0]).toMatchObject({ role: "user", content: "first question" });
    const forward = await ok<Page>("history/page", { direction: "forward", limit: 4 }, threadRun);
    expect(forward.items.map((i) => i.seq)).toEqual([1, 2, 3, 4]);
    expect(forward.has_more).toBe(true);
    const next = await ok<Page>("history/page", { direction: "forward", limit: 4, after_cursor: forward.after_cursor }, threadRun);
    expect(next.items.map((i) => i.seq)).toEqual([5, 6, 7, 8]);
    expect(next.has_more).toBe(false);
    expect(await failure("history/page", { before_cursor: "bm9wZQ" }, threadRun)).toMatchObject({ code: "invalid_argument" });
  });

  it("includes artifact refs only when asked", async () => {
    const artifact = await createRunnerArtifact({ userId: user.id, threadId: threadRun.threadId, runId: threadRun.id, runnerId: endpoint.runnerId, name: "out.txt", mimeType: "text/plain", bytes: Buffer.from("out") });
    type Page = { items: { seq: number; artifacts?: { artifact_id: string }[] }[] };
    const plain = await ok<Page>("history/page", { limit: 8 }, threadRun);
    expect(plain.items.every((i) => i.artifacts === undefined)).toBe(true);
    const withRefs = await ok<Page>("history/page", { limit: 8, include_artifacts: true }, threadRun);
    const carrying = withRefs.items.filter((i) => (i.artifacts ?? []).length > 0);
    expect(carrying.map((i) => i.seq)).toEqual([6]);
    expect(carrying[0]!.artifacts![0]).toMatchObject({ artifact_id: artifact.id, name: "out.txt", mime_type: "text/plain", size: 3 });
  });

  it("searches by words and by substring (CJK), best first, bounded by top_k", async () => {
    type Found = { items: { seq: number; score: number }[] };
    const words = await ok<Found>("history/search", { query: "kangaroos", top_k: 2 }, threadRun);
    expect(words.items).toHaveLength(2);
    expect(words.items.every((i) => i.score > 0)).toBe(true);
    const cjk = await ok<Found>("history/search", { query: "袋鼠" }, threadRun);
    expect(cjk.items.map((i) => i.seq)).toEqual([5]);
    const roles = await ok<Found>("history/search", { query: "message", filters: { roles: ["user"] } }, threadRun);
    expect(roles.items.map((i) => i.seq).sort()).toEqual([3, 5, 7]);
    // The run's own conversation only: the other run's thread says "hello there" too.
    const own = await ok<Found>("history/search", { query: "hello" }, threadRun);
    expect(own.items).toEqual([]);
  });
});

describe("events", () => {
  it("gets the run's entry event and pages the conversation's events", async () => {
    const { event } = await ok<{ event: Record<string, unknown> }>("events/get", { event_id: run.eventId });
    expect(event).toMatchObject({ event_id: run.eventId, event_type: "message.received", source: "webui", conversation_id: run.threadId, seq: 1 });
    await withTransaction(async (tx) => {
      for (let i = 0; i < 4; i++) {
        await recordEntryEvent({ id: `evt_test_${randomUUID()}`, eventType: "message.received", source: "api", sourceEventType: null, data: { i }, rawRef: null, threadId: run.threadId, userId: user.id }, tx);
      }
    });
    type Page = { events: { seq: number }[]; has_more: boolean; before_cursor: string };
    const newest = await ok<Page>("events/page", { limit: 3 });
    expect(newest.events.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(newest.has_more).toBe(true);
    const older = await ok<Page>("events/page", { limit: 3, before_cursor: newest.before_cursor });
    expect(older.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(older.has_more).toBe(false);
    expect(await failure("events/get", { event_id: "evt_missing" })).toMatchObject({ code: "not_found", status: 404 });
  });
});

describe("models", () => {
  it("invokes the configured model", async () => {
    const data = await ok("models/invoke", { model_id: modelId, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "ping" }] });
    expect(data).toMatchObject({ model_id: modelId, message: { role: "assistant", content: "You said: ping", tool_calls: [] }, finish_reason: "stop" });
    expect((data.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
  });

  it("returns the runner's tools as tool calls, never running them, and takes their results back", async () => {
    const tools = [{ name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string" } } } }];
    const data = await ok<{ message: { tool_calls: { id: string; name: string; arguments: unknown }[] }; finish_reason: string }>("models/invoke", {
      model_id: modelId,
      messages: [{ role: "user", content: 'weather? [[call:get_weather {"city":"Paris"}]]' }],
      tools,
    });
    expect(data.finish_reason).toBe("tool_calls");
    const call = data.message.tool_calls[0]!;
    expect(call).toMatchObject({ name: "get_weather", arguments: { city: "Paris" } });
    const answer = await ok<{ message: { content: string } }>("models/invoke", {
      model_id: modelId,
      tools,
      messages: [
        { role: "user", content: 'weather? [[call:get_weather {"city":"Paris"}]]' },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "sunny" },
      ],
    });
    expect(answer.message.content).toBe("Tool said: sunny");
  });

  it("answers rate_limited, saying which budget, once the run's user has used up the day's tokens", async () => {
    const spender = await createTestUser();
    const spending = await startRunSession({ userId: spender.id, endpoint, bindingId: await createBinding({ endpoint, userId: spender.id }), text: "hi" });
    const ask = { model_id: modelId, messages: [{ role: "user", content: "ping" }] };
    await ok("models/invoke", ask, spending);
    await getPool().query(`insert into usage_limits (subject, subject_id, tokens_per_day) values ('user', $1, 100)`, [spender.id]);
    await getPool().query(
      `insert into usage_daily (day, user_id, api_key_id, runner, model, runs, total_tokens) values ((now() at time zone 'UTC')::date, $1, '00000000-0000-0000-0000-000000000000', 'r', 'm', 1, 100)`,
      [spender.id],
    );
    for (const action of ["models/invoke", "models/stream"]) {
      const refused = await failure(action, ask, spending);
      expect(refused).toMatchObject({ code: "rate_limited", status: 429, details: { limit: "tokens_per_day", scope: "user", max: 100, used: 100 } });
      expect(refused.message).toContain("The daily token budget of your account (100 tokens) is used up");
    }
    await endRun(spending.id);
  });

  it("streams deltas and a final line with usage as NDJSON", async () => {
    const answer = await callHost(endpoint.secret, "models/stream", { run_id: run.id, model_id: modelId, messages: [{ role: "user", content: "stream me please" }] });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toContain("application/x-ndjson");
    const lines = ndjsonLines(answer.text);
    const deltas = lines.filter((l) => l.type === "delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.content).join("")).toBe("You said: stream me please");
    expect(lines.at(-1)).toMatchObject({ type: "final", finish_reason: "stop", message: { content: "You said: stream me please" } });
  });

  it("streams tool calls", async () => {
    const answer = await callHost(endpoint.secret, "models/stream", {
      run_id: run.id,
      model_id: modelId,
      messages: [{ role: "user", content: '[[call:lookup {"q":"x"}]]' }],
      tools: [{ name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } }],
    });
    const lines = ndjsonLines(answer.text);
    expect(lines.find((l) => l.type === "tool_call")).toMatchObject({ tool_call: { name: "lookup", arguments: { q: "x" } } });
    expect(lines.at(-1)).toMatchObject({ type: "final", finish_reason: "tool_calls" });
  });

  it("answers a provider failure before the first line as a retryable JSON error", async () => {
    const err = await failure("models/stream", { model_id: modelId, messages: [{ role: "user", content: "[[fail]]" }] });
    expect(err).toMatchObject({ code: "runtime_error", status: 502, retryable: true });
  });

  it("stops a stream at the run's deadline with an error line", async () => {
    const short = await startRunSession({ userId: user.id, endpoint, bindingId });
    await getPool().query(`update runs set deadline_at = now() + interval '1500 milliseconds' where id = $1`, [short.id]);
    const answer = await callHost(endpoint.secret, "models/stream", { run_id: short.id, model_id: modelId, messages: [{ role: "user", content: "[[hang]]" }] });
    const lines = ndjsonLines(answer.text);
    expect(lines[0]).toEqual({ type: "delta", content: "Thinking" });
    expect(lines.at(-1)).toMatchObject({ type: "error", error: { code: "deadline_exceeded" } });
    const audit = await waitForAuditRows(short.id, { count: 1 });
    expect(audit[0]).toMatchObject({ action: "models/stream", result: "deadline_exceeded" });
    await endRun(short.id);
  });

  it("stops the model call when the runner hangs up mid-stream, and audits it as cancelled", async () => {
    const hangUp = await startRunSession({ userId: user.id, endpoint, bindingId });
    const controller = new AbortController();
    const res = await fetch(`${baseUrl()}/api/v1/runner-api/models/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${endpoint.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ run_id: hangUp.id, model_id: modelId, messages: [{ role: "user", content: "[[hang]]" }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("Thinking");
    controller.abort();
    const audit = await waitForAuditRows(hangUp.id, { count: 1 });
    expect(audit[0]).toMatchObject({ action: "models/stream", result: "cancelled" });
    await endRun(hangUp.id);
  });

  it("reranks without a rerank model or embeddings by full-text relevance, best first, never 501", async () => {
    const documents = ["a recipe for sourdough bread", "the team meeting is on the calendar tomorrow at 10", "notes from the last meeting", "会议记录"];
    const ranked = await ok<{ results: { index: number; score: number }[]; ranker: string; model_id: string | null }>("models/rerank", { query: "calendar meeting tomorrow", documents, top_k: 3 });
    expect(ranked).toMatchObject({ ranker: "full_text", model_id: null });
    expect(ranked.results.map((r) => r.index)).toEqual([1, 2, 0]);
    expect(ranked.results[0]!.score).toBeGreaterThan(ranked.results[1]!.score);
    expect(ranked.results[1]!.score).toBeGreaterThan(ranked.results[2]!.score);
    const chinese = await ok<{ results: { index: number }[] }>("models/rerank", { query: "会议", documents });
    expect(chinese.results[0]!.index).toBe(3);
    // A chat model id is no ranking model: the host has none to rank with, and says so.
    expect(await failure("models/rerank", { model_id: modelId, query: "q", documents: ["a"] })).toMatchObject({
      code: "invalid_argument",
      status: 400,
      message: expect.stringContaining("this host has no ranking model"),
    });
  });
});

describe("tools", () => {
  it("describes project_cli thinly, and its skills through tools/call as the binding shows them (docs/skills.md)", async () => {
    const detail = await ok<{ parameters: { required: string[] }; description: string }>("tools/get_detail", { tool_name: "project_cli" });
    expect(detail.parameters.required).toEqual(["module", "method", "input"]);
    expect(detail.description).not.toContain("calendar.create");
    expect(detail.description).toContain('{"module":"skills","method":"list","input":{}}');
    type Skills = { output: { result: { data: { skills?: { name: string }[]; actions?: { action: string }[] } } } };
    const skills = (parameters: unknown) => ok<Skills>("tools/call", { tool_name: "project_cli", parameters });
    await getPool().query(`update agent_bindings set hidden_skills = '{memory}' where id = $1`, [bindingId]);
    try {
      expect((await skills({ module: "skills", method: "list", input: {} })).output.result.data.skills?.map((s) => s.name)).toEqual(["calendar", "contacts", "schedules"]);
      expect((await skills({ module: "skills", method: "read", input: { skill: "calendar", action: "create" } })).output.result.data.actions?.map((a) => a.action)).toEqual(["calendar.create"]);
    } finally {
      await getPool().query(`update agent_bindings set hidden_skills = '{}' where id = $1`, [bindingId]);
    }
  });

  it("runs project_cli for the run's user: a calendar event, its ToolAgentOutput and card, once per tool_call_id", async () => {
    // Writes wait for a person unless the binding approves for automation (server/approvals/runner.integration-test.ts).
    await getPool().query(`update agent_bindings set auto_approve = true where id = $1`, [bindingId]);
    const params = {
      tool_name: "project_cli",
      tool_call_id: "call_runner_1",
      parameters: { module: "calendar", method: "create", input: { title: "Offsite planning", start_at: "2026-06-01T09:00:00+02:00", duration_minutes: 60 } },
    };
    const data = await ok<{ output: { status: string; result: { data: { event: { id: string } } } }; ui_schema: unknown; tool_call_id: string; tool_response_text: string }>(
      "tools/call",
      params,
    );
    expect(data.tool_call_id).toBe("call_runner_1");
    expect(data.output).toMatchObject({ tool_name: "project_cli", tool_call_id: "call_runner_1", status: "success" });
    expect(data.ui_schema).not.toBeNull();
    expect(data.tool_response_text.length).toBeGreaterThan(0);
    // A runner retrying the call (its answer lost, or its own step repeated) gets the same answer, and no second event.
    expect(await ok("tools/call", params)).toEqual(data);
    const { rows } = await getPool().query(`select title from calendar_events where owner_id = $1`, [user.id]);
    expect(rows).toEqual([{ title: "Offsite planning" }]);
  });

  it("answers bad tool input as a failure output the runner can act on", async () => {
    const data = await ok<{ output: { status: string; error: { code: string } } }>("tools/call", { tool_name: "project_cli", parameters: { module: "calendar", method: "create", input: {} } });
    expect(data.output).toMatchObject({ status: "failure", error: { code: "INVALID_ACTION_INPUT" } });
  });
});

describe("knowledge", () => {
  it("lists the granted knowledge bases and retrieves ranked chunks from one", async () => {
    const kb = await createKnowledgeBase({ name: `Handbook ${randomUUID()}`, description: "Travel rules" });
    const hidden = await createKnowledgeBase({ name: `Payroll ${randomUUID()}` });
    const text = "# Travel\n\nTrains are booked in second class. Flights need approval from a manager.\n\n# Meals\n\nDinner allowance is 40 euros.";
    await addDocument({ kbId: kb.id, title: "handbook.md", mimeType: "text/markdown", bytes: new TextEncoder().encode(text) });
    const kbRun = await startRunSession({ userId: user.id, endpoint, bindingId, knowledgeBaseIds: [kb.id] });
    const listed = await ok<{ knowledge_bases: { kb_id: string; document_count: number }[] }>("knowledge/list", {}, kbRun);
    expect(listed.knowledge_bases).toEqual([expect.objectContaining({ kb_id: kb.id, description: "Travel rules", document_count: 1 })]);
    const found = await ok<{ results: { content: string; document_title: string; score: number }[] }>("knowledge/retrieve", { kb_id: kb.id, query_text: "flight approval", top_k: 3 }, kbRun);
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results[0]).toMatchObject({ document_title: "handbook.md" });
    expect(found.results[0]!.content).toContain("Flights need approval");
    expect(await failure("knowledge/retrieve", { kb_id: hidden.id, query_text: "salary" }, kbRun)).toMatchObject({ code: "unauthorized", status: 403 });
    await endRun(kbRun.id);
  });
});

describe("platform", () => {
  it("performs an allowed action, refusing an edit of a message the conversation does not have", async () => {
    expect(await failure("platform/request_action", { action: "message.edit", target: { message_id: "m" }, payload: { text: "x" } })).toMatchObject({
      code: "not_found",
      status: 404,
      details: { reason: "message_not_found" },
    });
  });
});

describe("audit", () => {
  it("records every successful call with its action, resource, scope and latency", async () => {
    const rows = await waitForAuditRows(run.id, { until: (r) => r.some((c) => c.action === "platform/request_action") });
    expect(rows.every((r) => r.runnerId === endpoint.runnerId && r.runRef === run.id && r.latencyMs >= 0)).toBe(true);
    expect(rows).toContainEqual(expect.objectContaining({ action: "state/set", resource: "session.id", scope: "conversation", result: "ok" }));
    expect(rows).toContainEqual(expect.objectContaining({ action: "storage/list", scope: "plugin", result: "ok" }));
    expect(rows).toContainEqual(expect.objectContaining({ action: "tools/call", resource: "project_cli", result: "ok" }));
    expect(rows).toContainEqual(expect.objectContaining({ action: "models/stream", resource: modelId, result: "ok" }));
    expect(rows).toContainEqual(expect.objectContaining({ action: "platform/request_action", resource: "message.edit", result: "not_found" }));
  });
});
