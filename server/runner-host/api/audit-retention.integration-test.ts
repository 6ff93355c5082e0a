import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { waitFor } from "@/test/wait";
import { callHost, createBinding, createEndpoint, endRun, startRunSession, waitForAuditRows } from "./test-fixtures";

// Host API calls without a valid credential are counted, not stored: anyone can send them, with
// any action name. Stored rows (authenticated calls) are kept for RUNNER_API_AUDIT_RETENTION_DAYS.

let adminCookie: string;

beforeAll(async () => {
  baseUrl(); // needs a production build
  const admin = await createTestUser({ role: "admin", password: "retention-pass-1" });
  adminCookie = (await signInOverHttp(admin.email, "retention-pass-1"))!;
});

async function refusedUnauthorized(): Promise<number> {
  const res = await trpcGet("runnerApiCalls.refusals", undefined, { cookie: adminCookie });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result: { data: { json: { byReason: Record<string, number> } } } };
  return body.result.data.json.byReason.unauthorized ?? 0;
}

async function auditRowsWithAction(actions: string[]): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>("select count(*)::int as n from runner_api_calls where action = any($1)", [actions]);
  return rows[0]!.n;
}

describe("calls refused before authentication", () => {
  it("write no audit row, whatever action they name, and move the refusal counter", async () => {
    const before = await refusedUnauthorized();
    const actions = Array.from({ length: 40 }, () => `junk-${randomUUID().slice(0, 8)}/act-${randomUUID().slice(0, 8)}`);
    for (const [i, action] of actions.entries()) {
      const answer = await callHost(i % 2 === 0 ? null : "rs_not-a-secret", action, { run_id: randomUUID() });
      expect(answer.status).toBe(401);
      expect(answer.body.error?.code).toBe("unauthorized");
    }
    expect(await refusedUnauthorized()).toBeGreaterThanOrEqual(before + actions.length);
    // An authenticated call after them is stored as soon as it was answered, so theirs would be by now.
    const user = await createTestUser();
    const endpoint = await createEndpoint();
    const run = await startRunSession({ userId: user.id, endpoint, bindingId: await createBinding({ endpoint, userId: user.id }) });
    const stored = await callHost(endpoint.secret, "state/set", { run_id: run.id, scope: "conversation", key: "k", value: 1 });
    expect(stored.status, stored.text).toBe(200);
    const rows = await waitForAuditRows(run.id, { count: 1 });
    expect(rows.map((r) => [r.action, r.result])).toEqual([["state/set", "ok"]]);
    await endRun(run.id);
    expect(await auditRowsWithAction(actions)).toBe(0);
  });

  it("is refused to non-admins", async () => {
    const member = await createTestUser({ password: "retention-pass-2" });
    const cookie = (await signInOverHttp(member.email, "retention-pass-2"))!;
    const res = await trpcGet("runnerApiCalls.refusals", undefined, { cookie });
    expect(res.status).toBe(403);
  });
});

describe("audit retention", () => {
  let server: ExtraServer | undefined;
  afterAll(() => {
    server?.child.kill("SIGKILL");
  });

  it("deletes rows older than the retention period at start-up and keeps recent ones", async () => {
    const tag = `retention-${randomUUID().slice(0, 8)}`;
    const day = 86_400_000;
    const ages = { expired: [8, 40, 400], kept: [0, 6] };
    const insert = (action: string, ageDays: number) =>
      getPool().query(`insert into runner_api_calls (action, result, latency_ms, created_at) values ($1, 'ok', 1, $2)`, [action, new Date(Date.now() - ageDays * day)]);
    for (const age of ages.expired) await insert(`${tag}/expired`, age);
    for (const age of ages.kept) await insert(`${tag}/kept`, age);

    server = await startExtraServer({ RUNNER_API_AUDIT_RETENTION_DAYS: "7" });
    await waitFor(async () => (await auditRowsWithAction([`${tag}/expired`])) === 0, 20_000);
    expect(await auditRowsWithAction([`${tag}/kept`])).toBe(ages.kept.length);
  }, 90_000);
});
