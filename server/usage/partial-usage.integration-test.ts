import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { createTestUser } from "@/test/helpers";
import { postRun, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { defineRunner } from "@/sdk/runner/define-runner";
import { delta, runFailed } from "@/sdk/runner/results";
import { startRunners, type StartedRunner } from "@/examples/runners/start";

// #29: a run that fails after spending tokens still records them, on the wire (RUN_ERROR's usage),
// on the run and in the usage ledger, for the built-in agent and for an external runner alike.

type Usage = { model?: string; inputTokens: number; outputTokens: number; totalTokens: number };
const CALENDAR_DAY = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]]';

const SPENDER_ID = "plugin:dispatch-tests/spender/default";
const spender = defineRunner({
  manifest: { id: SPENDER_ID, name: "default", label: { en_US: "Spender" }, capabilities: { streaming: true }, permissions: {}, context: { bootstrap: "none" } },
  async *run() {
    yield delta("half an answer");
    yield runFailed("upstream.broken", "the agent behind this runner gave up", { usage: { input_tokens: 120, output_tokens: 30 } });
  },
});

let runner: StartedRunner;
beforeAll(async () => {
  const secret = `runner-secret-${randomUUID()}`;
  runner = await startRunners({ secret, runners: [spender] });
  await registerRunner({ url: runner.url, secret });
});
afterAll(() => runner.close());

async function failedRun(apiKey: string, text: string) {
  const body = runInput({}, text);
  const frames = (await collectSse(await postRun(apiKey, body, { stream: true }))).map((f) => JSON.parse(f.data) as { type: string; usage?: Usage[]; code?: string });
  const { rows } = await getPool().query<{ status: string; usage: Usage | null; model: string | null }>(`select status, usage, model from runs where run_id = $1`, [body.runId]);
  return { error: frames.at(-1)!, run: rows[0]! };
}

async function ledger(userId: string) {
  const { rows } = await getPool().query<{ runs: number; failed_runs: number; runs_without_usage: number; input_tokens: number; output_tokens: number; total_tokens: number }>(
    `select sum(runs)::int as runs, sum(failed_runs)::int as failed_runs, sum(runs_without_usage)::int as runs_without_usage, sum(input_tokens)::int as input_tokens,
       sum(output_tokens)::int as output_tokens, sum(total_tokens)::int as total_tokens
     from usage_daily where user_id = $1 group by day, api_key_id, runner, model`,
    [userId],
  );
  return rows;
}

describe("usage of runs that fail", () => {
  it("the built-in agent failing after a model step records that step's tokens", async () => {
    const user = await createTestUser();
    const { error, run } = await failedRun(user.apiKey, `${CALENDAR_DAY} [[fail]] what is on`);
    expect(error).toMatchObject({ type: "RUN_ERROR", code: "RUNNER_ERROR" });
    expect(error.usage).toHaveLength(1);
    const spent = error.usage![0]!;
    expect(spent.inputTokens).toBeGreaterThan(0);
    expect(spent.totalTokens).toBe(spent.inputTokens + spent.outputTokens);
    expect(run).toMatchObject({ status: "failed", usage: { inputTokens: spent.inputTokens, outputTokens: spent.outputTokens, totalTokens: spent.totalTokens } });
    expect(run.model).toBe(spent.model);
    expect(await ledger(user.id)).toEqual([
      { runs: 1, failed_runs: 1, runs_without_usage: 0, input_tokens: spent.inputTokens, output_tokens: spent.outputTokens, total_tokens: spent.totalTokens },
    ]);
  });

  it("an external runner's run.failed with usage records it", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: SPENDER_ID, email: user.email });
    const { error, run } = await failedRun(user.apiKey, "spend and fail");
    expect(error).toMatchObject({ type: "RUN_ERROR", code: "upstream.broken", usage: [{ model: SPENDER_ID, inputTokens: 120, outputTokens: 30, totalTokens: 150 }] });
    expect(run).toMatchObject({ status: "failed", usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 } });
    expect(await ledger(user.id)).toEqual([{ runs: 1, failed_runs: 1, runs_without_usage: 0, input_tokens: 120, output_tokens: 30, total_tokens: 150 }]);
  });
});
