import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { setBudgets } from "@/server/usage/service";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { waitFor } from "@/test/wait";
import { defineRunner } from "@/sdk/runner/define-runner";
import { delta, runFailed } from "@/sdk/runner/results";
import { startRunners, type StartedRunner } from "@/examples/runners/start";
import { recoverAbandonedRuns } from "@/server/runs/recovery";
import { createEndpoint, startRunSession } from "@/server/runner-host/api/test-fixtures";

// Issue #46: the daily token budget holds under concurrency. A run reserves an estimate of its
// tokens when it is accepted (server/usage/reservation.ts), in the accepting statement, so runs
// fired together cannot each see the whole budget; its end replaces the reservation with what it
// actually used, and a run that fails or is cancelled gives its reservation back.

type ApiError = { error: { code: string; message: string; details: Record<string, unknown> } };

// An external runner that holds its run until the test lets it go, then fails having spent 150 tokens.
const HOLDER_ID = "plugin:dispatch-tests/holder/default";
let release: () => void = () => {};
let held = false;
const holder = defineRunner({
  manifest: { id: HOLDER_ID, name: "default", label: { en_US: "Holder" }, capabilities: { streaming: true }, permissions: {}, context: { bootstrap: "none" } },
  async *run() {
    yield delta("working on it");
    const gate = new Promise<void>((resolve) => (release = resolve));
    held = true;
    await gate;
    yield runFailed("upstream.broken", "the agent behind this runner gave up", { usage: { input_tokens: 120, output_tokens: 30 } });
  },
});

let runner: StartedRunner;
beforeAll(async () => {
  const secret = `runner-secret-${randomUUID()}`;
  runner = await startRunners({ secret, runners: [holder] });
  await registerRunner({ url: runner.url, secret });
});
afterAll(() => runner.close());

const nextUtcMidnight = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString().replace(".000Z", "Z");
};

async function reservations(userId: string): Promise<number[]> {
  const { rows } = await getPool().query<{ reserved: number }>(`select reserved_tokens::int as reserved from runs where user_id = $1 order by created_at`, [userId]);
  return rows.map((r) => r.reserved);
}

/** Today's ledger of the user next to what their ended runs report they used. */
async function ledgerAndActual(userId: string): Promise<{ ledger: number; actual: number; runs: number; failed: number }> {
  const { rows } = await getPool().query<{ ledger: number; actual: number; runs: number; failed: number }>(
    `select (select coalesce(sum(total_tokens), 0)::int from usage_daily where user_id = $1 and day = (now() at time zone 'UTC')::date) as ledger,
       (select coalesce(sum((usage->>'totalTokens')::int), 0)::int from runs where user_id = $1 and status not in ('queued', 'running')) as actual,
       (select coalesce(sum(runs), 0)::int from usage_daily where user_id = $1) as runs,
       (select coalesce(sum(failed_runs), 0)::int from usage_daily where user_id = $1) as failed`,
    [userId],
  );
  return rows[0]!;
}

describe("daily token budgets under concurrency", () => {
  it("admit of twenty runs fired together only as many as the budget holds plus one reservation; the rest get 429 naming the budget and its reset", async () => {
    const user = await createTestUser();
    const budget = 10_000;
    await setBudgets({ subject: "user", subjectId: user.id, values: { tokensPerDay: budget, runsPerMinute: null, concurrentRuns: null } });
    // Every run hangs in its model call, so none ends (and none settles) while the others are accepted.
    const inputs = Array.from({ length: 20 }, (_, i) => runInput({}, `[[hang]] hold ${String(i).padStart(2, "0")}`));
    const answers = await Promise.all(inputs.map((input) => postRun(user.apiKey, input)));

    const admitted = inputs.filter((_, i) => answers[i]!.status === 202);
    const refused = answers.filter((r) => r.status !== 202);
    expect(admitted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    const reserved = await reservations(user.id);
    expect(reserved).toHaveLength(admitted.length);
    const one = reserved[0]!;
    expect(one).toBeGreaterThan(4096); // the prompt's estimate plus the default output limit
    expect(new Set(reserved)).toEqual(new Set([one]));
    // Admitted while the budget had room: the last one admitted saw some, and together they exceed it by less than one reservation.
    const total = reserved.reduce((a, b) => a + b, 0);
    expect(total - one).toBeLessThan(budget);
    expect(total).toBeGreaterThanOrEqual(budget);
    expect(admitted).toHaveLength(Math.ceil(budget / one));

    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      const { error } = (await res.json()) as ApiError;
      expect(error.code).toBe("RATE_LIMITED");
      expect(error.details).toMatchObject({ limit: "tokens_per_day", scope: "user", max: budget, used: 0, reserved: total, resetsAt: nextUtcMidnight() });
      expect(error.message).toContain(`The daily token budget of your account (${budget} tokens) is held by runs in progress`);
      expect(error.message).toContain(`resets at 00:00 UTC (${nextUtcMidnight()})`);
    }

    // Cancelled, the runs give their reservations back: the ledger holds what they used, and the next run is admitted.
    for (const input of admitted) await fetch(`${baseUrl()}/api/v1/agent/runs/${input.runId}/cancel`, { method: "POST", headers: bearer(user.apiKey) });
    for (const input of admitted) expect((await waitForRunEnd(user.apiKey, input.runId)).status).toBe("cancelled");
    const after = runInput({}, "after the cancels");
    expect((await postRun(user.apiKey, after)).status).toBe(202);
    expect((await waitForRunEnd(user.apiKey, after.runId)).status).toBe("completed");
    const books = await ledgerAndActual(user.id);
    expect(books.runs).toBe(admitted.length + 1);
    expect(books.ledger).toBe(books.actual);
    expect(books.ledger).toBeGreaterThan(0);
    expect(books.ledger).toBeLessThan(one);
  });

  it("a failed run releases its reservation: refused while it runs, the next run is admitted once it failed, and the ledger holds its actual usage", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: HOLDER_ID, email: user.email });
    const key = (await getPool().query<{ id: string }>(`select id from api_keys where user_id = $1`, [user.id])).rows[0]!;
    // Less than one run's reservation: a run in progress holds the whole budget.
    await setBudgets({ subject: "api_key", subjectId: key.id, values: { tokensPerDay: 1_000, runsPerMinute: null, concurrentRuns: null } });

    held = false;
    const first = runInput({}, "hold on");
    expect((await postRun(user.apiKey, first)).status).toBe(202);
    await waitFor(() => held, 10_000);

    const during = await postRun(user.apiKey, runInput({}, "me too"));
    expect(during.status).toBe(429);
    const { error } = (await during.json()) as ApiError;
    expect(error.details).toMatchObject({ limit: "tokens_per_day", scope: "api_key", max: 1_000, used: 0, resetsAt: nextUtcMidnight() });
    expect(error.message).toContain("The daily token budget of this API key (1000 tokens) is held by runs in progress");

    release();
    expect(await waitForRunEnd(user.apiKey, first.runId)).toMatchObject({ status: "failed" });
    expect(await ledgerAndActual(user.id)).toEqual({ ledger: 150, actual: 150, runs: 1, failed: 1 });

    held = false;
    const next = runInput({}, "now me");
    expect((await postRun(user.apiKey, next)).status).toBe(202);
    await waitFor(() => held, 10_000);
    release();
    expect(await waitForRunEnd(user.apiKey, next.runId)).toMatchObject({ status: "failed" });
    expect(await ledgerAndActual(user.id)).toEqual({ ledger: 300, actual: 300, runs: 2, failed: 2 });
  });

  it("a run whose executor stopped reporting gives its reservation back when the sweep closes it", async () => {
    const user = await createTestUser();
    await setBudgets({ subject: "user", subjectId: user.id, values: { tokensPerDay: 1_000, runsPerMinute: null, concurrentRuns: null } });
    // An external runner's run, accepted and running, whose executor is gone: nothing renews its heartbeat.
    const endpoint = await createEndpoint();
    const lost = await startRunSession({ userId: user.id, endpoint });
    expect((await reservations(user.id))[0]).toBeGreaterThan(1_000);
    expect((await postRun(user.apiKey, runInput({}, "while it holds"))).status).toBe(429);

    await getPool().query(`update runs set heartbeat_at = now() - interval '20 seconds' where id = $1`, [lost.id]);
    // The sweep every instance runs (the server's own may get there first).
    await recoverAbandonedRuns({ runId: lost.id });
    const closed = async () => (await getPool().query<{ status: string; error_code: string }>(`select status, error_code from runs where id = $1`, [lost.id])).rows[0]!;
    await waitFor(async () => (await closed()).status !== "running", 10_000);
    expect(await closed()).toEqual({ status: "failed", error_code: "EXECUTOR_LOST" });
    const after = runInput({}, "after the sweep");
    expect((await postRun(user.apiKey, after)).status).toBe(202);
    expect((await waitForRunEnd(user.apiKey, after.runId)).status).toBe("completed");
    const books = await ledgerAndActual(user.id);
    expect(books).toMatchObject({ runs: 2, failed: 1 });
    expect(books.ledger).toBe(books.actual);
  });
});
