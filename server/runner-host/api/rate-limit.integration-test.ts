import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, createTestUser } from "@/test/helpers";
import { createEndpoint, endRun, startRunSession, type TestEndpoint } from "./test-fixtures";

// The host API's per-run rate limit with two server processes on one database (the test server
// and a second one): a runner that spreads its calls over both still gets its limit once.

let other: ExtraServer;
let endpoint: TestEndpoint;
let userId: string;

beforeAll(async () => {
  [other, endpoint, userId] = await Promise.all([startExtraServer(), createEndpoint(), createTestUser().then((u) => u.id)]);
}, 90_000);

afterAll(async () => {
  if (other && other.child.exitCode === null) {
    const exited = new Promise((resolve) => other.child.once("exit", resolve));
    other.child.kill("SIGTERM");
    await exited;
  }
});

async function historyPage(origin: string, runId: string) {
  const res = await fetch(`${origin}/api/v1/runner-api/history/page`, {
    method: "POST",
    headers: { authorization: `Bearer ${endpoint.secret}`, "content-type": "application/json" },
    body: JSON.stringify({ run_id: runId, limit: 1 }),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; error?: { code: string; details: Record<string, unknown> } } };
}

describe("host API rate limit across instances", () => {
  it("gives a run its calls a minute once, whichever instance serves them", async () => {
    const run = await startRunSession({ userId, endpoint, limits: { rate_per_minute: 4 } });
    const servers = [baseUrl(), other.url, baseUrl(), other.url];
    for (const origin of servers) expect((await historyPage(origin, run.id)).status).toBe(200);
    for (const origin of [baseUrl(), other.url]) {
      const refused = await historyPage(origin, run.id);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: "rate_limited", details: { rate_per_minute: 4, retry_after_ms: expect.any(Number) } });
    }
    // Another run has its own bucket.
    const next = await startRunSession({ userId, endpoint, limits: { rate_per_minute: 4 } });
    expect((await historyPage(other.url, next.id)).status).toBe(200);
    await Promise.all([endRun(run.id), endRun(next.id)]);
  });
});
