import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { createApiKey } from "@/server/accounts/service/api-keys";
import { findLedgerRows } from "@/server/usage/repository";
import { ledgerCsv, myUsage, setBudgets, usageReport } from "@/server/usage/service";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";

// The usage ledger and budgets over real HTTP: what a run reports on the wire (AG-UI's usage on
// RUN_FINISHED, the run status endpoint, the Agent API's usage) is what the ledger holds, and a
// budget refuses a run with 429 on every protocol, before anything is written, the same on two
// server instances sharing the database.

let other: ExtraServer | undefined;
beforeAll(async () => {
  baseUrl();
  other = await startExtraServer();
}, 90_000);
afterAll(() => {
  other?.child.kill("SIGTERM");
});

const today = () => new Date().toISOString().slice(0, 10);
const CALENDAR_DAY = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]]';

function postTo(origin: string, path: string, key: string, body: unknown, accept?: string): Promise<Response> {
  return fetch(`${origin}${path}`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", ...(accept ? { accept } : {}) },
    body: JSON.stringify(body),
  });
}

async function runsNamed(runId: string): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(`select count(*)::int as n from runs where run_id = $1`, [runId]);
  return rows[0]!.n;
}

async function threadExists(threadId: string): Promise<boolean> {
  const { rows } = await getPool().query(`select 1 from threads where id = $1`, [threadId]);
  return rows.length > 0;
}

describe("usage on the wire and in the ledger", () => {
  it("records each run's tokens, model, tool calls, key and duration once, equal to what the protocols report", async () => {
    const user = await createTestUser();
    const keyRow = (await getPool().query<{ id: string }>(`select id from api_keys where user_id = $1`, [user.id])).rows[0]!;

    const body = runInput({}, `${CALENDAR_DAY} what is on that day`);
    const frames = await collectSse(await postRun(user.apiKey, body, { stream: true }));
    const finished = JSON.parse(frames.at(-1)!.data) as { type: string; usage?: { model?: string; inputTokens: number; outputTokens: number; totalTokens: number }[] };
    expect(finished.type).toBe("RUN_FINISHED");
    expect(finished.usage).toHaveLength(1);
    const wire = finished.usage![0]!;
    expect(wire.inputTokens).toBeGreaterThan(0);
    expect(wire.totalTokens).toBe(wire.inputTokens + wire.outputTokens);

    const status = (await (await getJson(user.apiKey, `/api/v1/agent/runs/${body.runId}`)).json()) as { usage: Record<string, number>; model: string };
    expect(status.usage).toMatchObject({ inputTokens: wire.inputTokens, outputTokens: wire.outputTokens, totalTokens: wire.totalTokens });
    expect(wire.model).toBe(status.model);

    // The Agent API's usage for a second run, with the same key.
    const res = await postTo(baseUrl(), "/api/v1/agent/process", user.apiKey, { input: [{ role: "user", type: "message", content: [{ type: "text", text: "hello again" }] }], stream: false });
    expect(res.status).toBe(200);
    const response = (await res.json()) as { usage: { input_tokens: number; output_tokens: number; total_tokens: number } };
    expect(response.usage.total_tokens).toBeGreaterThan(0);

    const rows = await findLedgerRows({ from: today(), to: today(), userId: user.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      apiKeyId: keyRow.id,
      model: status.model,
      runs: 2,
      failedRuns: 0,
      runsWithoutUsage: 0,
      inputTokens: wire.inputTokens + response.usage.input_tokens,
      outputTokens: wire.outputTokens + response.usage.output_tokens,
      totalTokens: wire.totalTokens + response.usage.total_tokens,
      toolCalls: 1,
    });
    expect(rows[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // The AI SDK's OpenAI-compatible provider reads absent cache and reasoning details as 0.
    expect(rows[0]).toMatchObject({ cachedInputTokens: 0, reasoningTokens: 0 });

    // The console's report and CSV, and the user's own view, read the same ledger.
    const report = (await usageReport({ from: today(), to: today() })).filter((r) => r.userId === user.id);
    expect(report).toEqual(rows);
    const csv = ledgerCsv(report).split("\r\n");
    expect(csv[0]).toContain("day,userEmail,apiKeyName");
    expect(csv[1]).toContain(`${today()},${user.email},test,`);
    const mine = await myUsage({ userId: user.id });
    expect(mine.days).toEqual([{ day: today(), runs: 2, totalTokens: rows[0]!.totalTokens }]);
    expect(mine.today.tokensToday).toBe(rows[0]!.totalTokens);
  });
});

describe("the ledger under concurrent run ends", () => {
  it("adds every run of one key that ends at the same time to its one line", async () => {
    const user = await createTestUser();
    const inputs = Array.from({ length: 8 }, (_, i) => runInput({}, `at once ${i}`));
    for (const res of await Promise.all(inputs.map((input) => postRun(user.apiKey, input)))) expect(res.status).toBe(202);
    const ends = await Promise.all(inputs.map((input) => waitForRunEnd(user.apiKey, input.runId)));
    expect(ends.map((e) => e.status)).toEqual(inputs.map(() => "completed"));
    const tokens = ends.map((e) => (e.usage as { totalTokens: number }).totalTokens);
    const rows = await findLedgerRows({ from: today(), to: today(), userId: user.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ runs: inputs.length, failedRuns: 0, totalTokens: tokens.reduce((a, b) => a + b, 0) });
    expect((await myUsage({ userId: user.id })).today.tokensToday).toBe(rows[0]!.totalTokens);
  });
});

describe("budgets", () => {
  it("refuse a run over the daily token budget with 429 on every protocol, writing nothing; a repeated runId is still the same task", async () => {
    const user = await createTestUser();
    const first = runInput({}, "spend some tokens");
    expect((await postRun(user.apiKey, first)).status).toBe(202);
    await waitForRunEnd(user.apiKey, first.runId);
    await setBudgets({ subject: "user", subjectId: user.id, values: { tokensPerDay: 1, runsPerMinute: null, concurrentRuns: null } });

    const seed = runInput({}, "one more");
    const refused = await postRun(user.apiKey, seed);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = ((await refused.json()) as { error: { code: string; message: string; details: Record<string, unknown> } }).error;
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.message).toMatch(/daily token budget of your account \(1 tokens\) is used up/);
    expect(error.details).toMatchObject({ limit: "tokens_per_day", scope: "user", max: 1 });

    const native = runInput({}, "and via the native door");
    const agUi = await postTo(other!.url, "/api/v1/ag-ui", user.apiKey, native, "text/event-stream");
    expect(agUi.status).toBe(429);
    expect(agUi.headers.get("retry-after")).not.toBeNull();
    const agentApi = await postTo(baseUrl(), "/api/v1/agent/process", user.apiKey, { input: [{ role: "user", type: "message", content: [{ type: "text", text: "hi" }] }], response_id: "budget-agent-api" });
    expect(agentApi.status).toBe(429);
    expect(((await agentApi.json()) as { error: { message: string } }).error.message).toMatch(/daily token budget/);

    for (const input of [seed, native]) {
      expect(await runsNamed(input.runId)).toBe(0);
      expect(await threadExists(input.threadId)).toBe(false);
    }
    expect(await runsNamed("budget-agent-api")).toBe(0);
    // The run that was accepted before the budget is answered as itself.
    expect((await postRun(user.apiKey, first)).status).toBe(202);
    const mine = await myUsage({ userId: user.id });
    expect(mine.remaining.tokensToday).toBe(0);
  });

  it("hold runs per minute across two server instances: of six simultaneous runs exactly the budget's two are accepted", async () => {
    const user = await createTestUser();
    await setBudgets({ subject: "user", subjectId: user.id, values: { tokensPerDay: null, runsPerMinute: 2, concurrentRuns: null } });
    const inputs = Array.from({ length: 6 }, () => runInput({}, "count me"));
    const answers = await Promise.all(inputs.map((input, i) => postTo(i % 2 ? other!.url : baseUrl(), "/api/v1/agent/runs", user.apiKey, input)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 429, 429, 429, 429]);
    const limited = answers.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(/run rate limit of your account \(2 runs per minute\)/);
    const { rows } = await getPool().query<{ n: number }>(`select count(*)::int as n from runs where user_id = $1`, [user.id]);
    expect(rows[0]!.n).toBe(2);
  });

  it("limit concurrent runs, and an API key's own budget applies to that key only", async () => {
    const user = await createTestUser();
    await setBudgets({ subject: "user", subjectId: user.id, values: { tokensPerDay: null, runsPerMinute: null, concurrentRuns: 1 } });
    const slow = runInput({}, paced(100, "a slow answer with a good many words in it"));
    expect((await postRun(user.apiKey, slow)).status).toBe(202);
    const second = await postTo(other!.url, "/api/v1/agent/runs", user.apiKey, runInput({}, "me too"));
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { message: string } }).error.message).toMatch(/concurrent run limit of your account \(1 runs in progress\)/);
    await fetch(`${baseUrl()}/api/v1/agent/runs/${slow.runId}/cancel`, { method: "POST", headers: bearer(user.apiKey) });
    await waitForRunEnd(user.apiKey, slow.runId);
    await setBudgets({ subject: "user", subjectId: user.id, values: { tokensPerDay: null, runsPerMinute: null, concurrentRuns: null } });

    const { key: limitedKey, record } = await createApiKey({ userId: user.id, name: "limited" });
    await setBudgets({ subject: "api_key", subjectId: record.id, values: { tokensPerDay: null, runsPerMinute: 1, concurrentRuns: null } });
    expect((await postRun(limitedKey, runInput({}, "first with the key"))).status).toBe(202);
    const overKey = await postRun(limitedKey, runInput({}, "second with the key"));
    expect(overKey.status).toBe(429);
    expect(((await overKey.json()) as { error: { message: string; details: { scope: string } } }).error).toMatchObject({
      message: expect.stringMatching(/run rate limit of this API key \(1 runs per minute\)/),
      details: { scope: "api_key" },
    });
    // The user's other key is not bound by it.
    expect((await postRun(user.apiKey, runInput({}, `other key ${randomUUID()}`))).status).toBe(202);
  });
});
