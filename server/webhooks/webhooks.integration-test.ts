import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApproval, recordDecision } from "@/server/approvals/repository";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { findRunById } from "@/server/runs/repository/runs";
import { acceptRun } from "@/server/runs/accept";
import { cancelRun } from "@/server/runs/cancel";
import { executeRun } from "@/server/runs/execute";
import { runHandle } from "@/server/runs/handle";
import { RunnerFailure, type Runner } from "@/server/kernel/runs";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { waitFor } from "@/test/wait";
import { startWebhookReceiver, type Receiver } from "@/test/webhook-receiver";

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
type Endpoint = { id: string; secret: string; enabled: boolean; disabledReason: string | null; consecutiveFailures: number };

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

function api(key: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { ...bearer(key), ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function json<T = Record<string, unknown>>(res: Promise<Response>, status = 200): Promise<T> {
  const response = await res;
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** Registers `path` on the receiver as `user`'s endpoint, and lets the receiver verify with its secret. */
async function register(user: TestUser, path: string, events?: string[]): Promise<Endpoint> {
  const endpoint = await json<Endpoint>(api(user.apiKey, "/webhooks", { method: "POST", body: { url: receiver.url(path), ...(events ? { events } : {}) } }), 201);
  expect(endpoint.secret).toMatch(/^whsec_/);
  receiver.secrets.set(path, endpoint.secret);
  return endpoint;
}

type Delivery = { id: string; eventType: string; status: string; attempts: number; lastStatus: number | null; lastError: string | null };
const deliveries = async (user: TestUser, endpointId: string) => (await json<{ items: Delivery[] }>(api(user.apiKey, `/webhooks/${endpointId}/deliveries`))).items;
const done: Runner = { id: "test:done", run: async () => ({}) };

/** A run of `user`'s executed to its end by `runner`. */
async function runTo(user: TestUser, runner: Runner, during?: (runId: string) => Promise<void>) {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId: randomUUID() })));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId: user.id, input: parsed.input, protocol: "ag-ui", runner: "test" });
  const execution = executeRun(runHandle(run), parsed.input, runner);
  await during?.(run.id);
  await execution;
  return run;
}


describe("webhooks", () => {
  it("deliver every event at least once, signed per Standard Webhooks, while the receiver fails and recovers", async () => {
    const owner = await createTestUser();
    const endpoint = await register(owner, "/flaky");
    // The first four requests fail (503, then a hang past the deliverer's timeout, then two 500s).
    let calls = 0;
    receiver.answer("/flaky", () => {
      calls++;
      return calls === 1 ? 503 : calls === 2 ? "hang" : calls <= 4 ? 500 : 200;
    });

    const completed = await runTo(owner, done);
    const failed = await runTo(owner, { id: "test:fail", run: async () => { throw new RunnerFailure("BROKEN", "the test runner broke"); } });
    const cancelled = await runTo(owner, { id: "test:wait", run: ({ signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))) }, async (id) => {
      await waitFor(async () => (await findRunById({ id }))?.status === "running", 10_000);
      await cancelRun((await findRunById({ id }))!);
    });
    let approvalId = "";
    const interrupted = await runTo(owner, {
      id: "test:ask",
      run: async ({ run }) => {
        const approval = await insertApproval({ id: randomUUID(), runId: run.id, threadId: run.threadId, userId: owner.id, toolCallId: "call_1", action: "contacts.create", input: {}, policy: "always", expiresAt: new Date(Date.now() + 3_600_000) });
        approvalId = approval.id;
        return {};
      },
    });
    await recordDecision({ id: approvalId, status: "approved", decidedBy: owner.id, asAdmin: false, reason: null, editedInput: undefined });

    await waitFor(() => receiver.unique("/flaky").length >= 5, 30_000);
    const byType = new Map(receiver.unique("/flaky").map((r) => [r.payload!.type, r.payload!]));
    expect([...byType.keys()].sort()).toEqual(["approval.decided", "run.cancelled", "run.completed", "run.failed", "run.interrupted"]);
    // Each payload links to its run on this deployment. Whichever instance delivers it writes its own
    // origin (PUBLIC_URL in a deployment): other test files' instances share this database's queue
    // and run without PUBLIC_URL, so only the link's path is this file's to pin.
    const onDeployment = (path: string) => expect.stringMatching(new RegExp(`^https?://[^/]+${path}$`));
    expect(byType.get("run.completed")!.data.run).toMatchObject({ id: completed.id, status: "completed", url: onDeployment(`/api/v1/agent/runs/${completed.id}`) });
    expect(byType.get("run.failed")!.data.run).toMatchObject({ id: failed.id, errorCode: "BROKEN" });
    expect(byType.get("run.cancelled")!.data.run).toMatchObject({ id: cancelled.id, status: "cancelled" });
    expect(byType.get("run.interrupted")!.data).toMatchObject({ run: { id: interrupted.id }, approvals: [{ id: approvalId, action: "contacts.create" }] });
    expect(byType.get("approval.decided")!.data).toMatchObject({ approval: { id: approvalId, status: "approved" }, run: { id: interrupted.id, eventsUrl: onDeployment(`/api/v1/agent/runs/${interrupted.id}/events`) } });
    // The failures were retried under the same webhook-id: more requests than events, no event twice after dedup.
    expect(receiver.to("/flaky").length).toBeGreaterThan(5);
    expect(receiver.to("/flaky").every((r) => r.verified)).toBe(true);

    await waitFor(async () => (await deliveries(owner, endpoint.id)).every((d) => d.status === "delivered"), 30_000);
    const log = await deliveries(owner, endpoint.id);
    expect(log).toHaveLength(5);
    expect(log.some((d) => d.attempts > 1)).toBe(true);
    expect(await json<Endpoint>(api(owner.apiKey, `/webhooks/${endpoint.id}`))).toMatchObject({ enabled: true, consecutiveFailures: 0 });
  }, 60_000);

  it("refuse URLs on private or local addresses, as for runners, unless the operator allows the host", async () => {
    const owner = await createTestUser();
    for (const url of ["http://localhost:9/hook", "http://10.0.0.8/hook", "http://169.254.169.254/latest", "http://[::1]:9/hook", "ftp://example.com/hook"]) {
      const refused = await json<{ error: { code: string; message: string } }>(api(owner.apiKey, "/webhooks", { method: "POST", body: { url } }), 400);
      expect(refused.error.message, url).toMatch(/url/);
    }
    // 127.0.0.1 is in the test server's RUNNER_ALLOWED_HOSTS, as runner registration allows it.
    await register(owner, "/allowed", ["run.completed"]);
    expect((await json<{ items: unknown[] }>(api(owner.apiKey, "/webhooks"))).items).toHaveLength(1);
  });

  it("keep each owner's endpoints and deliveries to that owner", async () => {
    const [owner, stranger] = [await createTestUser(), await createTestUser()];
    const endpoint = await register(owner, "/owned", ["run.completed"]);
    await runTo(owner, done);
    await runTo(stranger, done);
    await waitFor(() => receiver.unique("/owned").length === 1, 15_000);
    expect((await json<{ items: unknown[] }>(api(stranger.apiKey, "/webhooks"))).items).toEqual([]);
    for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/rotate-secret"], ["GET", "/deliveries"]] as const) {
      const res = await api(stranger.apiKey, `/webhooks/${endpoint.id}${path}`, { method, ...(method === "PATCH" ? { body: { enabled: false } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const [delivery] = await deliveries(owner, endpoint.id);
    expect((await api(stranger.apiKey, `/webhooks/${endpoint.id}/deliveries/${delivery!.id}/redeliver`, { method: "POST" })).status).toBe(404);
    expect((await api(owner.apiKey, "/webhooks/not-a-uuid")).status).toBe(404);
    // The stranger's run reached nobody's endpoint but theirs (they have none).
    expect(receiver.unique("/owned").map((r) => r.payload!.data.run!.id)).toHaveLength(1);
    expect(await json(api(owner.apiKey, `/webhooks/${endpoint.id}`, { method: "DELETE" }))).toEqual({ deleted: true });
    expect((await api(owner.apiKey, `/webhooks/${endpoint.id}`)).status).toBe(404);
  });

  it("redeliver under the same webhook-id, and sign with old and new secrets after a rotation", async () => {
    const owner = await createTestUser();
    const endpoint = await register(owner, "/rotate", ["run.completed"]);
    await runTo(owner, done);
    await waitFor(() => receiver.unique("/rotate").length === 1, 15_000);
    const first = receiver.unique("/rotate")[0]!;
    const rotated = await json<Endpoint>(api(owner.apiKey, `/webhooks/${endpoint.id}/rotate-secret`, { method: "POST" }));
    expect(rotated.secret).not.toBe(endpoint.secret);
    const redelivered = await json<Delivery>(api(owner.apiKey, `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`, { method: "POST" }), 202);
    expect(redelivered).toMatchObject({ id: first.id, status: "pending" });
    await waitFor(() => receiver.to("/rotate").length === 2, 15_000);
    const again = receiver.to("/rotate")[1]!;
    // Verified by the old secret (the receiver has not switched yet) and carrying two signatures.
    expect(again).toMatchObject({ id: first.id, verified: true });
    expect(again.signature.split(" ")).toHaveLength(2);
    receiver.secrets.set("/rotate", rotated.secret);
    await json(api(owner.apiKey, `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`, { method: "POST" }), 202);
    await waitFor(() => receiver.to("/rotate").length === 3, 15_000);
    expect(receiver.to("/rotate")[2]).toMatchObject({ id: first.id, verified: true });
  });

  it("disable an endpoint that keeps failing, with a notice, until its owner enables it again", async () => {
    const owner = await createTestUser();
    const endpoint = await register(owner, "/down", ["run.completed"]);
    let up = false;
    receiver.answer("/down", () => (up ? 200 : 500));
    for (let i = 0; i < 4; i++) await runTo(owner, done);
    const disabled = async () => json<Endpoint>(api(owner.apiKey, `/webhooks/${endpoint.id}`));
    await waitFor(async () => !(await disabled()).enabled, 30_000);
    expect((await disabled()).disabledReason).toMatch(/^Disabled automatically after \d+ failed attempts in a row/);
    // Nothing more is sent to a disabled endpoint; redelivery waits for it to be enabled.
    await waitFor(async () => (await deliveries(owner, endpoint.id)).every((d) => d.status !== "pending"), 30_000);
    const [stuck] = await deliveries(owner, endpoint.id);
    expect((await api(owner.apiKey, `/webhooks/${endpoint.id}/deliveries/${stuck!.id}/redeliver`, { method: "POST" })).status).toBe(409);
    up = true;
    expect(await json<Endpoint>(api(owner.apiKey, `/webhooks/${endpoint.id}`, { method: "PATCH", body: { enabled: true } }))).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 });
    await json(api(owner.apiKey, `/webhooks/${endpoint.id}/deliveries/${stuck!.id}/redeliver`, { method: "POST" }), 202);
    await waitFor(() => receiver.unique("/down").some((r) => r.id === stuck!.id) && receiver.to("/down").at(-1)?.id === stuck!.id, 15_000);
    await waitFor(async () => (await deliveries(owner, endpoint.id)).find((d) => d.id === stuck!.id)?.status === "delivered", 15_000);
  }, 60_000);
});
