import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { startOwnedDatabase, type OwnedDatabase } from "@/test/owned-database";
import { runInput } from "@/test/runs";
import { waitFor } from "@/test/wait";

// A database outage, as a client sees it: a server whose PostgreSQL is frozen (every process
// SIGSTOPped: connections open, nothing answers) or stopped answers 503 with Retry-After, on
// health, REST, a run request and tRPC, within its timeouts and without internals; when the
// database is back, it serves again. The database is this file's own cluster: the shared one
// serves the other test files.

// Every answer must come well within this: a hang fails the request, not the test run.
const ANSWER_BOUND_MS = 15_000;

let db: OwnedDatabase;
let server: ExtraServer;
let apiKey: string;
let cookie: string;
let frozen = false;

const call = (pathname: string, init: RequestInit = {}) => fetch(`${server.url}${pathname}`, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });

/** Each way in answers 503 with Retry-After and a message with nothing internal in it. */
async function expectOutageAnswers(): Promise<void> {
  const health = await call("/api/health");
  expect(health.status).toBe(503);
  expect(health.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await health.json()).toMatchObject({ status: "degraded", database: { reachable: false, error: expect.any(String) } });

  const answers = [
    await call("/api/v1/me", { headers: bearer(apiKey) }),
    await call("/api/v1/agent/runs", { method: "POST", headers: { ...bearer(apiKey), "content-type": "application/json" }, body: JSON.stringify(runInput()) }),
  ];
  for (const res of answers) {
    expect(res.status, res.url).toBe(503);
    expect(res.headers.get("retry-after"), res.url).toMatch(/^\d+$/);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(body.error.message).not.toMatch(/ECONN|socket|\.s\.PGSQL|timeout|pg|\//i);
  }

  const trpc = await call(`/api/trpc/users.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { cookie } });
  expect(trpc.status).toBe(503);
  expect(trpc.headers.get("retry-after")).toMatch(/^\d+$/);
  const text = await trpc.text();
  expect(text).toContain("SERVICE_UNAVAILABLE");
  expect(text).not.toMatch(/ECONN|\.s\.PGSQL|Query read timeout|timeout exceeded|node_modules|\.js:\d/i);

  // A signed-in page: the error reaches the browser as a digest only (app/error.tsx renders the
  // friendly page from it), never as a stack or a driver message.
  const page = await call("/chat", { headers: { cookie } });
  const html = await page.text();
  expect(html).toMatch(/digest\W+\d+/);
  expect(html).not.toMatch(/ECONN|\.s\.PGSQL|Query read timeout|timeout exceeded|node_modules|database system|at async/i);
}

async function expectServing(): Promise<void> {
  await waitFor(async () => (await call("/api/health")).status === 200, ANSWER_BOUND_MS);
  expect((await call("/api/v1/me", { headers: bearer(apiKey) })).status).toBe(200);
  expect((await call(`/api/trpc/users.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { cookie } })).status).toBe(200);
}

beforeAll(async () => {
  db = await startOwnedDatabase();
  const user = await createTestUser({ role: "admin" });
  await db.copyUser(user.id);
  apiKey = user.apiKey;
  // Short timeouts, so each outage answer comes in seconds.
  server = await startExtraServer({
    DATABASE_URL: db.url,
    DATABASE_CONNECT_TIMEOUT_MS: "1500",
    DATABASE_STATEMENT_TIMEOUT_MS: "2000",
    HEALTH_TIMEOUT_MS: "1000",
  });
  const session = await signInOverHttp(user.email, user.password, server.url);
  if (!session) throw new Error("could not sign in to the extra server");
  cookie = session;
});

afterAll(async () => {
  if (frozen) db.signal("SIGCONT");
  server?.child.kill("SIGKILL");
  await db?.close();
});

describe("a database outage", () => {
  it("frozen (SIGSTOP): 503 with Retry-After everywhere, then serving again after SIGCONT", async () => {
    await expectServing();
    db.signal("SIGSTOP");
    frozen = true;
    try {
      await expectOutageAnswers();
      // A second round: connections that timed out were closed, not handed out again.
      await expectOutageAnswers();
    } finally {
      db.signal("SIGCONT");
      frozen = false;
    }
    await expectServing();
  });

  it("stopped: 503 with Retry-After everywhere, then serving again once it is restarted", async () => {
    await expectServing();
    await db.stop(); // PostgreSQL's fast shutdown: backends end their connections
    await expectOutageAnswers();
    await db.restart();
    await expectServing();
  });
});
