import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getPool } from "@/server/db";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { createTestUser } from "@/test/helpers";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, runCompleted } from "@/sdk/runner/results";
import type { AgentRunContext } from "@/sdk/runner/types";
import { startRunners, type StartedRunner } from "@/examples/runners/start";
import { SUMMARY_STALE_AFTER } from "./summary";

// summary_tail over real HTTP: the runner gets a summary of the earlier conversation made by the
// configured model (the test server's OpenAI-compatible fake, which echoes what it was asked), the
// same summary while it is fresh, a new one once SUMMARY_STALE_AFTER messages passed it, its cost in
// the usage ledger, and a plain statement in its context when the summary could not be made.

const RUNNER_ID = "plugin:dispatch-tests/summary-tail/default";
const contexts: AgentRunContext[] = [];
const summarised = defineRunner({
  manifest: {
    id: RUNNER_ID,
    name: "default",
    label: { en_US: "Summary tail" },
    capabilities: {},
    permissions: {},
    context: { ownership: "host_bootstrap", bootstrap: "summary_tail", max_inline_events: 2 },
  },
  async *run(ctx) {
    contexts.push(ctx);
    yield completed(`noted: ${ctx.input.text}`);
    yield runCompleted();
  },
});

let runner: StartedRunner;
beforeAll(async () => {
  const secret = `runner-secret-${randomUUID()}`;
  runner = await startRunners({ secret, runners: [summarised] });
  await registerRunner({ url: runner.url, secret });
});
afterAll(() => runner.close());

async function turn(apiKey: string, threadId: string, text: string): Promise<AgentRunContext> {
  const body = runInput({ threadId }, text);
  expect((await postRun(apiKey, body)).status).toBe(202);
  expect(await waitForRunEnd(apiKey, body.runId)).toMatchObject({ status: "completed" });
  return contexts.at(-1)!;
}

async function summaryCost(userId: string) {
  const { rows } = await getPool().query<{ runs: number; total: number }>(
    `select sum(runs)::int as runs, sum(total_tokens)::int as total from usage_daily where user_id = $1 and runner = $2 and model = $3 group by day, api_key_id`,
    [userId, RUNNER_ID, inject("llmModel")],
  );
  return rows[0] ?? null;
}

describe("summary_tail", () => {
  it("summarises what precedes the tail, reuses the summary while fresh, refreshes it when stale and records its cost", async () => {
    expect(SUMMARY_STALE_AFTER).toBe(4);
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const threadId = randomUUID();

    const first = await turn(user.apiKey, threadId, "we plan a retreat in Lisbon");
    expect(first.bootstrap ?? null).toBeNull();
    const second = await turn(user.apiKey, threadId, "budget is 5000 euros");
    // The tail holds the two earlier messages: nothing precedes it yet.
    expect(second.bootstrap).toMatchObject({ messages: [{ content: "we plan a retreat in Lisbon" }, { content: "noted: we plan a retreat in Lisbon" }], summary: null });
    expect(await summaryCost(user.id)).toBeNull();

    const third = await turn(user.apiKey, threadId, "twelve people are coming");
    expect(third.context.inline_policy).toMatchObject({ mode: "summary_tail", delivered_count: 2, messages_complete: false });
    expect(third.bootstrap!.messages.map((m) => m.content)).toEqual(["budget is 5000 euros", "noted: budget is 5000 euros"]);
    // The fake model answers "You said: <its request>": the summary request held the earlier messages.
    expect(third.bootstrap!.summary).toMatch(/^You said: .*user: we plan a retreat in Lisbon assistant: noted: we plan a retreat in Lisbon$/);
    expect(third.bootstrap!.metadata).toMatchObject({ summary: { covers_through_seq: 2, message_count: 2, refreshed: true, model: inject("llmModel") } });
    const cost = await summaryCost(user.id);
    expect(cost).toMatchObject({ runs: 0 });
    expect(cost!.total).toBeGreaterThan(0);

    const fourth = await turn(user.apiKey, threadId, "we need a venue");
    expect(fourth.bootstrap!.summary).toBe(third.bootstrap!.summary);
    expect(fourth.bootstrap!.metadata).toMatchObject({ summary: { covers_through_seq: 2, refreshed: false } });
    expect(await summaryCost(user.id)).toEqual(cost);

    const fifth = await turn(user.apiKey, threadId, "and a caterer");
    expect(fifth.bootstrap!.metadata).toMatchObject({ summary: { covers_through_seq: 6, message_count: 6, refreshed: true } });
    expect(fifth.bootstrap!.summary).toContain("user: twelve people are coming");
    expect((await summaryCost(user.id))!.total).toBeGreaterThan(cost!.total);
    const { rows } = await getPool().query(`select covers_seq, message_count from conversation_summaries where thread_id = $1`, [threadId]);
    expect(rows).toEqual([{ covers_seq: 6, message_count: 6 }]);
  });

  it("says so in the runner's context when the summary cannot be made, and inlines the tail", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const threadId = randomUUID();
    // The fake model fails any request holding this directive: here, the summary's.
    await turn(user.apiKey, threadId, "[[fail]] an early message");
    await turn(user.apiKey, threadId, "a second one");
    const ctx = await turn(user.apiKey, threadId, "a third one");
    expect(ctx.bootstrap).toMatchObject({ summary: null, metadata: { summary_error: "the model call failed" } });
    expect(ctx.bootstrap!.messages.map((m) => m.content)).toEqual(["a second one", "noted: a second one"]);
    expect(ctx.context.inline_policy.mode).toBe("recent_tail");
    expect(ctx.context.inline_policy.reason).toContain("could not be made");
    expect(await summaryCost(user.id)).toBeNull();
  });
});
