import { describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { revokeApiKey, createApiKey } from "@/server/services/api-keys";
import { createUser } from "@/server/services/users";

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
