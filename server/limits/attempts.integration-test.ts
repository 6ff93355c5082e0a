import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";

// Guessing credentials over real HTTP: sign-in backs off per account after five failures (even
// the right password waits), with an audit row per attempt; behind a trusted proxy, invalid API
// keys and runner secrets from one address are answered 429 with Retry-After after twenty, while
// a valid key from that same address keeps working.

let proxied: ExtraServer | undefined;
beforeAll(async () => {
  baseUrl();
  proxied = await startExtraServer({ TRUST_PROXY: "true" });
}, 90_000);
afterAll(() => {
  proxied?.child.kill("SIGTERM");
});

const address = () => `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;

/** One sign-in through Auth.js's credentials endpoint; the `code` of its refusal, or null when signed in. */
async function signIn(email: string, password: string): Promise<string | null> {
  const csrfRes = await fetch(`${baseUrl()}/api/auth/csrf`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const jar = csrfRes.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const res = await fetch(`${baseUrl()}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/" }),
  });
  const location = new URL(res.headers.get("location") ?? "/", baseUrl());
  return location.searchParams.get("error") ? location.searchParams.get("code") : null;
}

describe("sign-in back-off", () => {
  it("holds an account back after five failed passwords, the right one included, with an audit row per attempt", async () => {
    const user = await createTestUser();
    for (let i = 0; i < 5; i++) expect(await signIn(user.email, `wrong password ${i}`)).toBe("invalid_credentials");
    const held = await signIn(user.email, user.password);
    expect(held).toMatch(/^too_many_attempts:\d+$/);
    expect(Number(held!.split(":")[1])).toBeGreaterThan(0);
    const { rows } = await getPool().query<{ succeeded: boolean }>(`select succeeded from auth_attempts where kind = 'sign_in' and account = $1`, [user.email]);
    expect(rows.map((r) => r.succeeded)).toEqual([false, false, false, false, false]);
    // Another account is not held back by this one's failures.
    const other = await createTestUser();
    expect(await signIn(other.email, other.password)).toBeNull();
  });
});

describe("invalid API keys and runner secrets", () => {
  it("answer 401 twenty times from one address, then 429 with Retry-After; a valid key from there still works", async () => {
    const user = await createTestUser();
    const from = address();
    const me = (key: string) => fetch(`${proxied!.url}/api/v1/me`, { headers: { ...bearer(key), "x-forwarded-for": from } });
    const invalid = () => `dsp_${randomBytes(32).toString("base64url").slice(0, 43)}`;
    for (let i = 0; i < 20; i++) expect((await me(invalid())).status).toBe(401);
    const limited = await me(invalid());
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(/Too many invalid API keys from your address/);
    expect((await me(user.apiKey)).status).toBe(200);
    const { rows } = await getPool().query<{ n: number }>(`select count(*)::int as n from auth_attempts where kind = 'api_key' and address = $1`, [from]);
    expect(rows[0]!.n).toBe(21);
  });

  it("back off runner secrets the same way, answering the host API's rate_limited", async () => {
    const from = address();
    const call = () =>
      fetch(`${proxied!.url}/api/v1/runner-api/history/page`, {
        method: "POST",
        headers: { authorization: `Bearer not-a-runner-secret-${randomBytes(8).toString("hex")}`, "content-type": "application/json", "x-forwarded-for": from },
        body: JSON.stringify({ run_id: "00000000-0000-4000-8000-000000000000" }),
      });
    for (let i = 0; i < 20; i++) expect((await call()).status).toBe(401);
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    expect(((await limited.json()) as { ok: boolean; error: { code: string } }).error.code).toBe("rate_limited");
  });
});
