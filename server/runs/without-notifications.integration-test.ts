import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { freePort } from "@/scripts/lib/embedded-postgres";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";

// An instance whose LISTEN connection cannot open, as behind a transaction pooler with no direct
// URL, or with the direct connection lost: DATABASE_URL_UNPOOLED names a port nobody listens on.
// Followers there still see every event and the end (they re-read the log), and a cancel sent
// through another instance still stops a run executing there (its heartbeat reads the request).
// It also serves the cron endpoint with a CRON_SECRET.
const CRON_SECRET = "cron-secret-for-tests";
let deaf: ExtraServer | undefined;
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
  const nobody = await freePort();
  deaf = await startExtraServer({ DATABASE_URL_UNPOOLED: `postgresql://nobody@127.0.0.1:${nobody}/none`, CRON_SECRET });
}, 90_000);

afterAll(() => {
  deaf?.child.kill("SIGTERM");
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

describe("an instance without LISTEN", () => {
  it("streams a run executing elsewhere to its end, the same events as the executing instance", async () => {
    const body = runInput({}, `[[delay:30]] ${words(20)}`);
    expect((await postRun(user.apiKey, body)).status).toBe(202);
    const there = await collectSse(await fetch(`${deaf!.url}/api/v1/agent/runs/${body.runId}/events`, { headers: bearer(user.apiKey) }));
    const here = await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/events`, { headers: bearer(user.apiKey) }));
    expect(there).toEqual(here);
    expect(JSON.parse(there.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED" });
  });

  it("stops a run it executes when the cancel comes through another instance", async () => {
    const body = runInput({}, `[[delay:200]] ${words(60)}`);
    const res = await fetch(`${deaf!.url}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    const stream = readSse(res);
    const next = async () => JSON.parse(((await stream.next()).value as { data: string }).data) as { type: string };
    while ((await next()).type !== "TEXT_MESSAGE_CONTENT");
    const cancel = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/cancel`, { method: "POST", headers: bearer(user.apiKey) });
    expect(cancel.status).toBe(202);
    let last = await next();
    while (last.type !== "RUN_FINISHED" && last.type !== "RUN_ERROR") last = await next();
    // A cancelled run ends with RUN_FINISHED (its outcome is dropped for clients without protocolVersion).
    expect(last.type).toBe("RUN_FINISHED");
    expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("cancelled");
  });
});

describe("GET /api/cron/{duty}", () => {
  const cron = (base: string, duty: string, authorization?: string) => fetch(`${base}/api/cron/${duty}`, { headers: authorization ? { authorization } : {} });

  it("runs a duty for the bearer of CRON_SECRET, and refuses anyone else", async () => {
    const done = await cron(deaf!.url, "recover-runs", `Bearer ${CRON_SECRET}`);
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ duty: "recover-runs", recoveredRuns: expect.any(Number) });
    const retention = await cron(deaf!.url, "audit-retention", `Bearer ${CRON_SECRET}`);
    expect(await retention.json()).toEqual({ duty: "audit-retention", deletedAuditRows: expect.any(Number) });

    for (const authorization of [undefined, "Bearer wrong", `Bearer ${user.apiKey}`, CRON_SECRET]) {
      const refused = await cron(deaf!.url, "recover-runs", authorization);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe("Send Authorization: Bearer <CRON_SECRET>");
    }
    // The continuation a Vercel invocation asks for names one run by its id.
    const badRun = await cron(deaf!.url, "recover-runs?run=not-a-run", `Bearer ${CRON_SECRET}`);
    expect(badRun.status).toBe(400);
    expect(((await badRun.json()) as { error: { message: string } }).error.message).toBe("run must be the id of a run (a UUID)");
    const unknown = await cron(deaf!.url, "reboot", `Bearer ${CRON_SECRET}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe("No scheduled duty reboot; the duties are recover-runs, start-queued-runs, audit-retention, archive-runs, expire-run-events, deliver-webhooks, fire-schedules");
    // A server with no CRON_SECRET runs these on its own timers and answers nobody.
    const off = await cron(baseUrl(), "recover-runs", `Bearer ${CRON_SECRET}`);
    expect(off.status).toBe(403);
  });
});
