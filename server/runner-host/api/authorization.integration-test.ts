import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { getPool } from "@/server/db";
import { HOST_API_ACTION_NAMES, type HostApiActionName } from "@/server/protocols/runner/host-api";
import { createTestUser } from "@/test/helpers";
import { createRunnerArtifact } from "../artifact-store";
import {
  callHost,
  createBinding,
  createEndpoint,
  endRun,
  expireRun,
  startRunSession,
  waitForAuditRows,
  type RunSessionFixture,
  type TestEndpoint,
} from "./test-fixtures";

// The host API's authorization matrix over real HTTP: every action × every way a call can
// be out of bounds → the right AgentAPIError code and status, and nothing written.

type Case =
  | "no run_id"
  | "ended run"
  | "other runner's run"
  | "resource not granted"
  | "operation not granted"
  | "other conversation"
  | "oversize payload"
  | "over rate"
  | "past deadline";

const EXPECTED: Record<Case, { code: string; status: number }> = {
  "no run_id": { code: "invalid_argument", status: 400 },
  "ended run": { code: "unauthorized", status: 403 },
  "other runner's run": { code: "unauthorized", status: 403 },
  "resource not granted": { code: "unauthorized", status: 403 },
  "operation not granted": { code: "unauthorized", status: 403 },
  "other conversation": { code: "unauthorized", status: 403 },
  "oversize payload": { code: "payload_too_large", status: 413 },
  "over rate": { code: "rate_limited", status: 429 },
  "past deadline": { code: "deadline_exceeded", status: 504 },
};

let user: Awaited<ReturnType<typeof createTestUser>>;
let endpoint: TestEndpoint;
let otherEndpoint: TestEndpoint;
let bindingId: string;
let kbId: string;
const runs = {} as Record<"live" | "ended" | "foreign" | "noOps" | "tiny" | "expired" | "other", RunSessionFixture>;
let artifactId: string;
let otherArtifactId: string;

const LIVE_POLICY = {
  state: { scopes: ["conversation" as const] },
  storage: { areas: ["plugin" as const, "workspace" as const] },
  platform_api: { actions: ["message.edit"] },
};

type Spec = {
  valid: () => Record<string, unknown>;
  /** Parameters naming a resource the run was not granted. */
  ungranted?: () => Record<string, unknown>;
  /** Parameters reaching into another conversation, and the code that answers. */
  otherConversation?: { params: () => Record<string, unknown>; code: "unauthorized" | "not_found" };
};

const model = () => inject("llmModel");
const SPECS: Record<HostApiActionName, Spec> = {
  "models/invoke": { valid: () => ({ model_id: model(), messages: [{ role: "user", content: "hi" }] }), ungranted: () => ({ model_id: "gpt-secret", messages: [{ role: "user", content: "hi" }] }) },
  "models/stream": { valid: () => ({ model_id: model(), messages: [{ role: "user", content: "hi" }] }), ungranted: () => ({ model_id: "gpt-secret", messages: [{ role: "user", content: "hi" }] }) },
  // The ranking model is the host's, no run's grant: the operation is the whole grant (see models/rerank).
  "models/rerank": { valid: () => ({ query: "q", documents: ["a"] }) },
  "tools/get_detail": { valid: () => ({ tool_name: "project_cli" }), ungranted: () => ({ tool_name: "shell" }) },
  "tools/call": {
    valid: () => ({ tool_name: "project_cli", parameters: { module: "calendar", method: "create", input: { title: "Refused", start_at: "2026-05-01T10:00:00+00:00", duration_minutes: 30 } } }),
    ungranted: () => ({ tool_name: "shell", parameters: { cmd: "rm -rf /" } }),
  },
  "knowledge/list": { valid: () => ({}) },
  "knowledge/retrieve": { valid: () => ({ kb_id: kbId, query_text: "q" }), ungranted: () => ({ kb_id: randomUUID(), query_text: "q" }) },
  "history/page": {
    valid: () => ({}),
    ungranted: () => ({ conversation_id: randomUUID() }),
    otherConversation: { params: () => ({ conversation_id: runs.other.threadId }), code: "unauthorized" },
  },
  "history/search": {
    valid: () => ({ query: "hello" }),
    ungranted: () => ({ query: "hello", filters: { conversation_id: randomUUID() } }),
    otherConversation: { params: () => ({ query: "hello", filters: { conversation_id: runs.other.threadId } }), code: "unauthorized" },
  },
  "events/get": { valid: () => ({ event_id: runs.live.eventId }), otherConversation: { params: () => ({ event_id: runs.other.eventId }), code: "not_found" } },
  "events/page": { valid: () => ({}) },
  "artifacts/metadata": { valid: () => ({ artifact_id: artifactId }), otherConversation: { params: () => ({ artifact_id: otherArtifactId }), code: "not_found" } },
  "artifacts/read_range": { valid: () => ({ artifact_id: artifactId }), otherConversation: { params: () => ({ artifact_id: otherArtifactId }), code: "not_found" } },
  "artifacts/open_stream": { valid: () => ({ artifact_id: artifactId }), otherConversation: { params: () => ({ artifact_id: otherArtifactId }), code: "not_found" } },
  "state/get": { valid: () => ({ scope: "conversation", key: "k" }), ungranted: () => ({ scope: "actor", key: "k" }) },
  "state/set": { valid: () => ({ scope: "conversation", key: "k", value: { n: 1 } }), ungranted: () => ({ scope: "actor", key: "k", value: 1 }) },
  "state/delete": { valid: () => ({ scope: "conversation", key: "k" }), ungranted: () => ({ scope: "runner", key: "k" }) },
  "storage/get": { valid: () => ({ area: "plugin", key: "k" }), ungranted: () => ({ area: "binding", key: "k" }) },
  "storage/set": { valid: () => ({ area: "plugin", key: "k", value_base64: "aGk=" }), ungranted: () => ({ area: "binding", key: "k", value_base64: "aGk=" }) },
  "storage/delete": { valid: () => ({ area: "workspace", key: "k" }), ungranted: () => ({ area: "binding", key: "k" }) },
  "storage/list": { valid: () => ({ area: "plugin" }), ungranted: () => ({ area: "binding" }) },
  "platform/request_action": { valid: () => ({ action: "message.edit", target: {}, payload: {} }), ungranted: () => ({ action: "message.delete", target: {}, payload: {} }) },
};

/** Everything a call could have written for this test's user, endpoint and binding. */
async function footprint() {
  const { rows } = await getPool().query(
    `select
       (select count(*)::int from runner_state where binding_id = $1) as state,
       (select count(*)::int from runner_storage where owner_key = any($2::text[])) as storage,
       (select count(*)::int from calendar_events where owner_id = $3) as calendar,
       (select count(*)::int from messages m join threads t on t.id = m.thread_id where t.user_id = $3) as messages,
       (select count(*)::int from artifacts where user_id = $3) as artifacts,
       (select count(*)::int from agent_events where user_id = $3) as events`,
    [bindingId, [endpoint.id, otherEndpoint.id, user.id, bindingId], user.id],
  );
  return rows[0];
}

beforeAll(async () => {
  user = await createTestUser();
  endpoint = await createEndpoint();
  otherEndpoint = await createEndpoint();
  bindingId = await createBinding({ endpoint, userId: user.id, policy: LIVE_POLICY });
  const kb = await getPool().query<{ id: string }>(`insert into knowledge_bases (id, name) values (gen_random_uuid(), $1) returning id`, [`kb-${randomUUID()}`]);
  kbId = kb.rows[0]!.id;
  const common = { userId: user.id, endpoint, bindingId, policy: LIVE_POLICY, knowledgeBaseIds: [kbId] };
  runs.live = await startRunSession(common);
  runs.ended = await startRunSession(common);
  await endRun(runs.ended.id);
  runs.foreign = await startRunSession({ ...common, endpoint: otherEndpoint });
  runs.noOps = await startRunSession({
    ...common,
    permissions: { models: [], tools: [], knowledge_bases: [], history: [], events: [], artifacts: [], storage: [], platform_api: [] },
    policy: { state: { scopes: [] } },
  });
  runs.tiny = await startRunSession({ ...common, limits: { max_payload_bytes: 512 } });
  runs.expired = await startRunSession(common);
  await expireRun(runs.expired.id);
  runs.other = await startRunSession(common);
  await endRun(runs.other.id);
  const bytes = new TextEncoder().encode("artifact bytes");
  artifactId = (await createRunnerArtifact({ userId: user.id, threadId: runs.live.threadId, runId: runs.live.id, runnerId: endpoint.runnerId, name: "a.txt", mimeType: "text/plain", bytes })).id;
  otherArtifactId = (
    await createRunnerArtifact({ userId: user.id, threadId: runs.other.threadId, runId: runs.other.id, runnerId: endpoint.runnerId, name: "b.txt", mimeType: "text/plain", bytes })
  ).id;
});

type Attempt = { call: () => ReturnType<typeof callHost>; cleanup?: () => Promise<void> };

/** The call each case makes (set up, not yet made), or null where the case does not apply to the action. */
async function prepare(action: HostApiActionName, c: Case): Promise<Attempt | null> {
  const spec = SPECS[action];
  const call = (body: Record<string, unknown>) => ({ call: () => callHost(endpoint.secret, action, body) });
  const valid = (run: RunSessionFixture) => ({ run_id: run.id, ...spec.valid() });
  switch (c) {
    case "no run_id":
      return call(spec.valid());
    case "ended run":
      return call(valid(runs.ended));
    case "other runner's run":
      return call(valid(runs.foreign));
    case "resource not granted":
      return spec.ungranted ? call({ run_id: runs.live.id, ...spec.ungranted() }) : null;
    case "operation not granted":
      return call(valid(runs.noOps));
    case "other conversation":
      return spec.otherConversation ? call({ run_id: runs.live.id, ...spec.otherConversation.params() }) : null;
    case "oversize payload":
      return call({ ...valid(runs.tiny), padding: "x".repeat(600) });
    case "over rate": {
      const limited = await startRunSession({ userId: user.id, endpoint, bindingId, policy: LIVE_POLICY, knowledgeBaseIds: [kbId], limits: { rate_per_minute: 1 } });
      // The first call takes the only token; its parameters are invalid, so it changes nothing.
      const first = await callHost(endpoint.secret, action, { run_id: limited.id, not_a_parameter: true });
      expect(first.body.error?.code).toBe("invalid_argument");
      return { ...call(valid(limited)), cleanup: () => endRun(limited.id) };
    }
    case "past deadline":
      return call(valid(runs.expired));
  }
}

const CASES = Object.keys(EXPECTED) as Case[];

describe.each(HOST_API_ACTION_NAMES)("%s", (action) => {
  it.each(CASES)("%s → the right error, nothing written", async (c) => {
    const attempt = await prepare(action, c);
    if (attempt === null) return; // the case has no meaning for this action (see SPECS)
    const before = await footprint();
    const answer = await attempt.call();
    await attempt.cleanup?.();
    const expected = c === "other conversation" ? { code: SPECS[action].otherConversation!.code, status: SPECS[action].otherConversation!.code === "not_found" ? 404 : 403 } : EXPECTED[c];
    expect(answer.body.ok, answer.text).toBe(false);
    expect(answer.body.error).toMatchObject({ code: expected.code, retryable: c === "over rate" });
    expect(answer.status).toBe(expected.status);
    expect(answer.text).not.toContain(endpoint.secret);
    expect(await footprint()).toEqual(before);
  });
});

describe("credentials and transport", () => {
  it("answers 401 without a credential or with a wrong one, and never echoes the secret", async () => {
    const none = await callHost(null, "state/get", { run_id: runs.live.id, scope: "conversation", key: "k" });
    expect(none.status).toBe(401);
    expect(none.body.error?.code).toBe("unauthorized");
    const wrong = await callHost("rs_wrong-secret", "state/get", { run_id: runs.live.id, scope: "conversation", key: "k" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain("rs_wrong-secret");
  });

  it("treats a run_id that is not a run of this runner like any other foreign id", async () => {
    const answer = await callHost(endpoint.secret, "state/get", { run_id: "not-a-uuid", scope: "conversation", key: "k" });
    expect(answer.status).toBe(403);
    expect(answer.body.error?.message).toContain("not-a-uuid");
  });

  it("refuses a chunked body beyond the host-wide cap while reading it", async () => {
    const chunk = new TextEncoder().encode(`{"run_id":"${runs.live.id}","pad":"${"x".repeat(64 * 1024)}`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 40) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const answer = await callHost(endpoint.secret, "state/set", body as never, { duplex: "half" } as RequestInit);
    expect(answer.status, answer.text).toBe(413);
    expect(answer.body.error?.code).toBe("payload_too_large");
  });

  it("names unknown actions as not found", async () => {
    const answer = await callHost(endpoint.secret, "state/explode", { run_id: runs.live.id });
    expect(answer.status).toBe(404);
    expect(answer.body.error?.code).toBe("not_found");
  });
});

describe("audit of refused calls", () => {
  it("records refusals on the run they named, and calls on foreign runs without attributing them", async () => {
    const ended = await waitForAuditRows(runs.ended.id, { count: HOST_API_ACTION_NAMES.length });
    expect(new Set(ended.map((r) => r.action))).toEqual(new Set(HOST_API_ACTION_NAMES));
    expect(ended.every((r) => r.result === "unauthorized" && r.runnerId === endpoint.runnerId)).toBe(true);
    const foreign = await waitForAuditRows(null, { runRef: runs.foreign.id, count: HOST_API_ACTION_NAMES.length });
    expect(foreign.every((r) => r.result === "unauthorized" && r.runnerId === null)).toBe(true);
    const expired = await waitForAuditRows(runs.expired.id, { count: HOST_API_ACTION_NAMES.length });
    expect(expired.every((r) => r.result === "deadline_exceeded")).toBe(true);
    const live = await waitForAuditRows(runs.live.id, { count: 1 });
    expect(live.some((r) => r.action === "state/set" && r.result === "unauthorized" && r.scope === "actor")).toBe(true);
    const { rows } = await getPool().query(`select count(*)::int as n from runner_api_calls where run_ref like '%' || $1 || '%' or resource like '%' || $1 || '%'`, [
      endpoint.secret,
    ]);
    expect(rows[0].n).toBe(0);
  });
});
