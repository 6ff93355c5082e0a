import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun } from "@/server/runs/accept";
import { executeRun } from "@/server/runs/execute";
import { runHandle } from "@/server/runs/handle";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { waitFor } from "@/test/wait";
import { startWebhookReceiver, type Receiver } from "@/test/webhook-receiver";

// An instance killed (SIGKILL) while its delivery's request is in flight: the delivery is not
// lost. Another instance takes it once the dead attempt's lease expires, under the same
// webhook-id, and the receiver, deduplicating by it, stores the event once.

let receiver: Receiver;
let doomed: ExtraServer;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // It polls for due jobs far more often than the test server, so it soon takes a retried attempt.
  doomed = await startExtraServer({ WEBHOOK_RETRY_BASE_MS: "200", WEBHOOK_TIMEOUT_MS: "2000", QUEUE_POLL_INTERVAL_MS: "100" });
}, 90_000);
afterAll(async () => {
  doomed?.child.kill("SIGKILL");
  await receiver?.close();
});

/** The process id in the instance id (host:pid:tag) of whoever holds the delivery's attempt. */
async function holderPid(deliveryId: string): Promise<number | null> {
  const { rows } = await getPool().query<{ leased_by: string | null }>("select leased_by from webhook_deliveries where id = $1", [deliveryId]);
  const holder = rows[0]?.leased_by;
  return holder ? Number(holder.split(":").at(-2)) : null;
}

it("delivers an event whose sending instance was killed mid-request, once after deduplication", async () => {
  const owner = await createTestUser();
  const res = await fetch(`${baseUrl()}/api/v1/webhooks`, {
    method: "POST",
    headers: { ...bearer(owner.apiKey), "content-type": "application/json" },
    body: JSON.stringify({ url: receiver.url("/killed"), events: ["run.completed"] }),
  });
  const endpoint = (await res.json()) as { id: string; secret: string };
  expect(res.status).toBe(201);
  receiver.secrets.set("/killed", endpoint.secret);
  // Every request hangs until the doomed instance holds one; after its death, the receiver is well again.
  let killed = false;
  receiver.answer("/killed", () => (killed ? 200 : "hang"));

  const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId: randomUUID() })));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId: owner.id, input: parsed.input, protocol: "ag-ui", runner: "test" });
  await executeRun(runHandle(run), parsed.input, { id: "test:done", run: async () => ({}) });

  // Attempts by the test server time out and are retried; the first the doomed instance makes, it dies in.
  for (let seen = 0; !killed; ) {
    await waitFor(() => receiver.to("/killed").length > seen, 30_000);
    const request = receiver.to("/killed")[seen]!;
    seen = receiver.to("/killed").length;
    if ((await holderPid(request.id)) === doomed.child.pid) {
      const exited = new Promise((resolve) => doomed.child.once("exit", resolve));
      doomed.child.kill("SIGKILL");
      await exited;
      killed = true;
    }
  }
  const killedAt = receiver.to("/killed").length;
  const id = receiver.to("/killed")[0]!.id;
  await waitFor(() => receiver.unique("/killed").length === 1, 40_000);
  // The same webhook-id, sent again by the surviving instance after the dead attempt's lease expired.
  expect(receiver.unique("/killed")[0]!.id).toBe(id);
  expect(receiver.to("/killed").length).toBeGreaterThan(killedAt);
  expect(new Set(receiver.to("/killed").map((r) => r.id))).toEqual(new Set([id]));
  await waitFor(async () => (await getPool().query("select status from webhook_deliveries where id = $1", [id])).rows[0]?.status === "delivered", 10_000);
}, 120_000);
