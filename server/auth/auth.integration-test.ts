import { describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { revokeApiKey, createApiKey } from "@/server/accounts/service/api-keys";
import { createUser } from "@/server/accounts/service/users";
import { getPool } from "@/server/db";
import { paced, postRun, runInput } from "@/test/runs";

const me = (headers: Record<string, string> = {}) => fetch(`${baseUrl()}/api/v1/me`, { headers });

describe("API key authentication", () => {
  it("authenticates a valid key as its user", async () => {
    const user = await createTestUser();
    const res = await me(bearer(user.apiKey));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ email: user.email, role: "user", via: "api_key" });
  });

  it.each([
    ["no credentials", {}, "Sign in or send `Authorization: Bearer <api key>`"],
    ["a non-bearer scheme", { authorization: "Basic abc" }, "Malformed Authorization header: expected `Bearer <api key>`"],
    ["a malformed key", { authorization: "Bearer not-a-key" }, "Malformed API key: expected `Authorization: Bearer dsp_...`"],
    ["an unknown key", { authorization: `Bearer dsp_${"A".repeat(43)}` }, "Invalid API key"],
  ])("answers 401 with a clear message for %s", async (_name, headers, message) => {
    const res = await me(headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: "UNAUTHORIZED", message } });
  });

  it("refuses a revoked key", async () => {
    const user = await createTestUser();
    const { key, record } = await createApiKey({ userId: user.id, name: "to revoke" });
    expect((await me(bearer(key))).status).toBe(200);
    await revokeApiKey({ id: record.id });
    const res = await me(bearer(key));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe("This API key has been revoked");
  });

  it("refuses a revoked key that started runs moments before, and writes nothing for it", async () => {
    const user = await createTestUser();
    const { key, record } = await createApiKey({ userId: user.id, name: "busy key" });
    // The first run reads the key; the next ones take its owner from memory and have the key
    // checked by the statement that accepts them.
    for (let i = 0; i < 2; i++) expect((await postRun(key, runInput())).status).toBe(202);
    await revokeApiKey({ id: record.id });

    const refused = runInput();
    for (const res of [await postRun(key, refused), await postRun(key, refused, { stream: true }), await postRun(key, null, { raw: "{not json" })]) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe("This API key has been revoked");
    }
    const { rows } = await getPool().query("select 1 from runs where user_id = $1 and run_id = $2", [user.id, refused.runId]);
    expect(rows).toEqual([]);
    const threads = await getPool().query("select 1 from threads where id = $1", [refused.threadId]);
    expect(threads.rows).toEqual([]);
  });

  it("refuses a revoked key on the Agent API too, right after it was answered there", async () => {
    const user = await createTestUser();
    const { key, record } = await createApiKey({ userId: user.id, name: "agent api key" });
    const process = (body: unknown) =>
      fetch(`${baseUrl()}/api/v1/agent/process`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(body) });
    const input = [{ role: "user", type: "message", content: [{ type: "text", text: "hello" }] }];
    for (let i = 0; i < 2; i++) expect((await process({ input, stream: false })).status).toBe(200);
    await revokeApiKey({ id: record.id });

    const responseId = `response-${crypto.randomUUID()}`;
    for (const body of [{ input, stream: false, response_id: responseId }, { input: "not a list" }]) {
      const res = await process(body);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe("This API key has been revoked");
    }
    const { rows } = await getPool().query("select 1 from runs where user_id = $1 and run_id = $2", [user.id, responseId]);
    expect(rows).toEqual([]);
  });

  it("refuses a revoked key on /history right after it read pages there, and shows nothing", async () => {
    const user = await createTestUser();
    const run = runInput();
    expect((await postRun(user.apiKey, run)).status).toBe(202);
    // Each case with a key of its own: a refused key is forgotten, so only its first request after
    // the revocation takes the owner from memory and has the page query check the key.
    const cases: [query: string, statusBeforeRevocation: number][] = [
      [`?threadId=${run.threadId}`, 200],
      ["", 200],
      ["?before=2026-01-01", 200],
      [`?threadId=${crypto.randomUUID()}`, 404],
      ["?before=yesterday", 400],
    ];
    for (const [query, before] of cases) {
      const { key, record } = await createApiKey({ userId: user.id, name: "history key" });
      const history = () => fetch(`${baseUrl()}/api/v1/agent/history${query}`, { headers: bearer(key) });
      for (let i = 0; i < 2; i++) expect((await history()).status, query).toBe(before);
      await revokeApiKey({ id: record.id });
      const res = await history();
      expect(res.status, query).toBe(401);
      expect(await res.json(), query).toEqual({ error: { code: "UNAUTHORIZED", message: "This API key has been revoked" } });
    }
  });

  it("answers a known key's bad request with 400, and a busy thread with 409", async () => {
    const user = await createTestUser();
    const { key } = await createApiKey({ userId: user.id });
    expect((await me(bearer(key))).status).toBe(200);
    const bad = await postRun(key, runInput({ threadId: "not-a-uuid" }));
    expect(bad.status).toBe(400);
    const input = runInput({}, paced(200, "take your time"));
    expect((await postRun(key, input)).status).toBe(202);
    const busy = await postRun(key, runInput({ threadId: input.threadId }));
    expect(busy.status).toBe(409);
  });

  it("records a key's use at most once a minute", async () => {
    const user = await createTestUser();
    const lastUsed = async (id: string) =>
      (await getPool().query<{ at: Date | null }>("select last_used_at as at from api_keys where id = $1", [id])).rows[0]!.at;
    const untilUsed = async (id: string, after: number) => {
      for (let i = 0; i < 500; i++) {
        const at = await lastUsed(id);
        if (at && at.getTime() > after) return at;
        await new Promise((r) => setImmediate(r));
      }
      throw new Error("last_used_at was never recorded");
    };
    // Used 30 s ago: requests now leave it alone. Used 2 min ago (the control key): the next request records it.
    const recent = await createApiKey({ userId: user.id, name: "recent" });
    const stale = await createApiKey({ userId: user.id, name: "stale" });
    const recentAt = new Date(Date.now() - 30_000);
    await getPool().query("update api_keys set last_used_at = $2 where id = $1", [recent.record.id, recentAt]);
    await getPool().query("update api_keys set last_used_at = now() - interval '2 minutes' where id = $1", [stale.record.id]);
    for (let i = 0; i < 3; i++) expect((await me(bearer(recent.key))).status).toBe(200);
    const started = Date.now() - 5_000;
    expect((await me(bearer(stale.key))).status).toBe(200);
    await untilUsed(stale.record.id, started);
    expect((await lastUsed(recent.record.id))?.getTime()).toBe(recentAt.getTime());
  });
});

describe("browser sign-in and the admin tRPC API", () => {
  it("signs in with the right password only", async () => {
    const user = await createTestUser({ password: "right-password-1" });
    expect(await signInOverHttp(user.email, "wrong-password-1")).toBeNull();
    expect(await signInOverHttp("nobody@test.dispatch", "right-password-1")).toBeNull();
    const cookie = await signInOverHttp(user.email, "right-password-1");
    expect(cookie).not.toBeNull();
    const res = await me({ cookie: cookie! });
    expect(await res.json()).toMatchObject({ email: user.email, via: "session" });
  });

  it("answers 401 to anonymous callers and 403 to non-admins", async () => {
    const anon = await trpcGet("users.list", { limit: 5 });
    expect(anon.status).toBe(401);
    const member = await createTestUser({ password: "member-password" });
    const cookie = (await signInOverHttp(member.email, "member-password"))!;
    const res = await trpcGet("users.list", { limit: 5 }, { cookie });
    expect(res.status).toBe(403);
    expect(JSON.stringify(await res.json())).toContain("Admins only");
  });

  it("lets an admin list users and see health", async () => {
    const admin = await createUser({ email: `admin-${Date.now()}@test.dispatch`, password: "admin-password", role: "admin" });
    const cookie = (await signInOverHttp(admin.email, "admin-password"))!;
    const users = await trpcGet("users.list", { limit: 100 }, { cookie });
    expect(users.status).toBe(200);
    const body = (await users.json()) as { result: { data: { json: { items: { email: string }[] } } } };
    expect(body.result.data.json.items.map((u) => u.email)).toContain(admin.email);
    const health = await trpcGet("health.get", undefined, { cookie });
    expect(health.status).toBe(200);
  });
});

describe("GET /api/health", () => {
  it("reports the database as reachable with its version", async () => {
    const res = await fetch(`${baseUrl()}/api/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; database: { reachable: boolean; version: string } };
    expect(body.status).toBe("ok");
    expect(body.database.reachable).toBe(true);
    expect(body.database.version).toMatch(/^\d+/);
  });
});

describe("deactivated users and one-time passwords", () => {
  const trpcPost = (path: string, input: unknown, cookie: string) =>
    fetch(`${baseUrl()}/api/trpc/${path}`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ json: input }) });
  const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;
  const deactivated = { code: "FORBIDDEN", message: "The account this API key belongs to has been deactivated: an admin can reactivate it" };

  it("refuses a deactivated user's keys and sessions everywhere, even right after they were used, and reactivation restores them", async () => {
    const admin = await createUser({ email: `admin-${crypto.randomUUID()}@test.dispatch`, password: "admin-password", role: "admin" });
    const adminCookie = (await signInOverHttp(admin.email, "admin-password"))!;
    const user = await createTestUser({ password: "member-password" });
    const session = (await signInOverHttp(user.email, "member-password"))!;
    const earlier = runInput();
    // Used moments before: the next runs and history pages take the owner from memory and have
    // their one statement check the key, which must see the deactivation too.
    for (let i = 0; i < 2; i++) expect((await postRun(user.apiKey, i === 0 ? earlier : runInput())).status).toBe(202);
    expect((await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${earlier.threadId}`, { headers: bearer(user.apiKey) })).status).toBe(200);

    const off = await trpcPost("users.setActive", { id: user.id, active: false }, adminCookie);
    expect(off.status).toBe(200);

    const refused = runInput();
    const history = await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${earlier.threadId}`, { headers: bearer(user.apiKey) });
    expect(history.status).toBe(403);
    expect(await errorOf(history)).toEqual(deactivated);
    for (const res of [await postRun(user.apiKey, refused), await postRun(user.apiKey, refused, { stream: true }), await me(bearer(user.apiKey))]) {
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toEqual(deactivated);
    }
    const { rows } = await getPool().query("select 1 from runs where run_id = $1", [refused.runId]);
    expect(rows).toEqual([]);
    // The browser session ends at its next request, and signing in again is refused.
    expect((await me({ cookie: session })).status).toBe(401);
    expect(await signInOverHttp(user.email, "member-password")).toBeNull();
    // The admin still sees the user's finished work.
    const runs = await trpcGet("adminRuns.list", { userEmail: user.email, limit: 10 }, { cookie: adminCookie });
    expect(JSON.stringify(await runs.json())).toContain(earlier.runId);

    // An admin cannot deactivate themselves.
    const self = await trpcPost("users.setActive", { id: admin.id, active: false }, adminCookie);
    expect(self.status).toBe(400);
    expect(JSON.stringify(await self.json())).toContain("You cannot deactivate your own account");

    expect((await trpcPost("users.setActive", { id: user.id, active: true }, adminCookie)).status).toBe(200);
    expect((await me(bearer(user.apiKey))).status).toBe(200);
    expect((await postRun(user.apiKey, runInput())).status).toBe(202);
    expect((await me({ cookie: session })).status).toBe(200);
  });

  it("replaces a password with a one-time one: old password and sessions void, the app closed until a new one is chosen", async () => {
    const admin = await createUser({ email: `admin-${crypto.randomUUID()}@test.dispatch`, password: "admin-password", role: "admin" });
    const adminCookie = (await signInOverHttp(admin.email, "admin-password"))!;
    const user = await createTestUser({ password: "member-password" });
    const session = (await signInOverHttp(user.email, "member-password"))!;

    const res = await trpcPost("users.resetPassword", { id: user.id }, adminCookie);
    expect(res.status).toBe(200);
    const { oneTimePassword } = ((await res.json()) as { result: { data: { json: { oneTimePassword: string } } } }).result.data.json;
    expect(oneTimePassword).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);

    expect((await me({ cookie: session })).status).toBe(401);
    expect(await signInOverHttp(user.email, "member-password")).toBeNull();
    const oneTime = (await signInOverHttp(user.email, oneTimePassword))!;
    expect(oneTime).not.toBeNull();
    const blocked = await me({ cookie: oneTime });
    expect(blocked.status).toBe(403);
    expect((await errorOf(blocked)).message).toBe("Choose a new password first: open /change-password");
    // Every page leads to the change; the API key keeps working (it is not the password).
    const page = await fetch(`${baseUrl()}/chat`, { headers: { cookie: oneTime }, redirect: "manual" });
    expect(page.headers.get("location")).toContain("/sign-in");
    const signInPage = await fetch(`${baseUrl()}/sign-in`, { headers: { cookie: oneTime }, redirect: "manual" });
    expect(signInPage.headers.get("location")).toContain("/change-password");
    expect((await me(bearer(user.apiKey))).status).toBe(200);

    const own = await trpcPost("users.resetPassword", { id: admin.id }, adminCookie);
    expect(own.status).toBe(400);
  });
});
