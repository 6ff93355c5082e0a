import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The cron route's secret, set before server/env.ts is first read.
const CRON_SECRET = vi.hoisted(() => (process.env.CRON_SECRET = "webhook-cron-secret-for-tests"));
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

import { getPool } from "@/server/db";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { createBinding, createEndpoint } from "@/server/runner-host/api/test-fixtures";
import { acceptRun } from "@/server/runs/accept";
import { executeRun } from "@/server/runs/execute";
import { runHandle } from "@/server/runs/handle";
import { runScheduledDuty } from "@/server/operations/service/scheduled-duties";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { runInput } from "@/test/runs";
import { callerAs } from "@/test/trpc-callers";
import { waitFor } from "@/test/wait";
import { startWebhookReceiver, type Receiver } from "@/test/webhook-receiver";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

/** A run of `userId`'s, under `bindingId` when given, executed to its end. */
async function finishedRun(userId: string, bindingId?: string): Promise<string> {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId: randomUUID() })));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId, input: parsed.input, protocol: "ag-ui", runner: "test" });
  if (bindingId) await getPool().query("update runs set binding_id = $2 where id = $1", [run.id, bindingId]);
  await executeRun(runHandle(run), parsed.input, { id: "test:done", run: async () => ({}) });
  return run.id;
}

describe("webhooks in the console", () => {
  it("let an admin hear every run of a binding, read each endpoint's log and redeliver; users cannot", async () => {
    const [admin, user] = [await createTestUser({ role: "admin" }), await createTestUser()];
    const bindingId = await createBinding({ endpoint: await createEndpoint(), userId: user.id });
    const adminApi = callerAs(admin);
    await expect(callerAs(user).webhooks.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(adminApi.webhooks.create({ url: receiver.url("/binding"), events: ["run.completed"], bindingId: randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const endpoint = await adminApi.webhooks.create({ url: receiver.url("/binding"), events: ["run.completed"], bindingId });
    receiver.secrets.set("/binding", endpoint.secret);

    const bound = await finishedRun(user.id, bindingId);
    await finishedRun(user.id);
    await waitFor(() => receiver.unique("/binding").length === 1, 15_000);
    // Only the binding's run: the user's other run is not the admin's to hear.
    expect(receiver.unique("/binding")[0]!.payload!.data.run).toMatchObject({ id: bound });

    expect((await adminApi.webhooks.list()).find((e) => e.id === endpoint.id)).toMatchObject({ bindingId, userId: admin.id, enabled: true });
    const [delivery] = await adminApi.webhooks.deliveries({ endpointId: endpoint.id });
    await waitFor(async () => (await adminApi.webhooks.deliveries({ endpointId: endpoint.id }))[0]?.status === "delivered", 10_000);
    expect(await adminApi.webhooks.redeliver({ endpointId: endpoint.id, id: delivery!.id })).toMatchObject({ id: delivery!.id, status: "pending" });
    await waitFor(() => receiver.to("/binding").length === 2, 15_000);
    expect(receiver.to("/binding").map((r) => r.id)).toEqual([delivery!.id, delivery!.id]);
  });

  it("deliver what is due through the cron route's duty, as on Vercel where no worker runs", async () => {
    const admin = await createTestUser({ role: "admin" });
    const endpoint = await callerAs(admin).webhooks.create({ url: receiver.url("/cron"), events: ["run.completed"] });
    receiver.secrets.set("/cron", endpoint.secret);
    // A delivery with no queue job, due now: the instances' sweep leaves it alone for a few seconds.
    const id = randomUUID();
    await getPool().query(`insert into webhook_deliveries (id, endpoint_id, event_type, payload) values ($1, $2, 'run.completed', $3)`, [
      id,
      endpoint.id,
      { type: "run.completed", timestamp: new Date().toISOString(), data: { run: { id: "r-cron" } } },
    ]);
    await expect(runScheduledDuty({ duty: "deliver-webhooks", authorization: null })).rejects.toMatchObject({ status: 401 });
    const done = await runScheduledDuty({ duty: "deliver-webhooks", authorization: `Bearer ${CRON_SECRET}` });
    expect(done.attemptedDeliveries).toBeGreaterThanOrEqual(1);
    expect(receiver.unique("/cron").map((r) => r.id)).toEqual([id]);
  });

  it("show the console page, whose list reaches the browser session over tRPC", async () => {
    const admin = await createTestUser({ role: "admin" });
    const endpoint = await callerAs(admin).webhooks.create({ url: receiver.url("/page"), events: ["run.failed"] });
    const cookie = (await signInOverHttp(admin.email, admin.password))!;
    const page = await fetch(`${baseUrl()}/admin/webhooks`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="webhooks-panel"');
    const listed = await trpcGet("webhooks.list", undefined, { cookie });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain(endpoint.id);
  });
});
