import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";

// Guessing credentials over real HTTP: sign-in backs off per account after five failures (even
// the right password waits), with an audit row per attempt; behind a trusted proxy, invalid API
// keys and runner secrets from one address are answered 429 with Retry-After after twenty, while
// a valid key from that same address keeps working. Without a proxy the connection's own
// address is counted, and a ceiling holds every address together back.

// Without TRUST_PROXY, and with a ceiling of failed key checks across all addresses a test reaches.
const CEILING = 200;
// The product's default back-off per address, which the rest of the suite's servers raise (test/setup-env.ts).
const PER_ADDRESS = { CREDENTIAL_FAILURES_FREE_PER_ADDRESS: "20" };
let proxied: ExtraServer | undefined;
let direct: ExtraServer | undefined;
beforeAll(async () => {
  baseUrl();
  [proxied, direct] = await Promise.all([startExtraServer({ TRUST_PROXY: "true", ...PER_ADDRESS }), startExtraServer({ ...PER_ADDRESS, CREDENTIAL_FAILURES_PER_MINUTE: String(CEILING) })]);
}, 120_000);
afterAll(() => {
  proxied?.child.kill("SIGTERM");
  direct?.child.kill("SIGTERM");
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

/** A loopback address of its own (all of 127.0.0.0/8 reaches the server), for a client the server tells apart by its connection. */
const loopback = () => `127.${1 + (randomBytes(1)[0]! % 254)}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 254)}`;

type Answer = { status: number; retryAfter: string | null; message: string };

/** GET /api/v1/me (served by Next) with `key`, sent from `localAddress`: the status, Retry-After and error message. */
const meFrom = (localAddress: string, key: string, headers: Record<string, string> = {}) => callFrom(localAddress, key, "GET", "/api/v1/me", headers);

/** A run started with `key` from `localAddress` (the node:http fast path serves it). */
const runFrom = (localAddress: string, key: string) =>
  callFrom(localAddress, key, "POST", "/api/v1/agent/runs", { "content-type": "application/json" }, JSON.stringify({ threadId: randomUUID(), runId: randomUUID(), messages: [{ id: "m1", role: "user", content: "hi" }] }));

function callFrom(localAddress: string, key: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${direct!.url}${path}`, { method, localAddress, agent: false, headers: { ...bearer(key), ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        const message = res.statusCode === 200 ? "" : ((JSON.parse(body) as { error: { message: string } }).error.message ?? "");
        resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers["retry-after"] as string | undefined) ?? null, message });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const invalidKey = () => `dsp_${randomBytes(32).toString("base64url").slice(0, 43)}`;

describe("invalid API keys without a trusted proxy", () => {
  it("back off per connection address (a forged header changes nothing), then for all addresses together past the ceiling", async () => {
    const user = await createTestUser();
    const guesser = loopback();
    // The header our server writes from the connection: a client's own copy is replaced, not believed.
    for (let i = 0; i < 20; i++) expect((await meFrom(guesser, invalidKey(), { "x-dispatch-peer-address": `203.0.113.${i}` })).status).toBe(401);
    const limited = await meFrom(guesser, invalidKey(), { "x-dispatch-peer-address": "203.0.113.99" });
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(limited.message).toMatch(/Too many invalid API keys from your address/);
    const { rows } = await getPool().query<{ n: number }>(`select count(*)::int as n from auth_attempts where kind = 'api_key' and address = $1`, [guesser]);
    expect(rows[0]!.n).toBe(21);
    // The run endpoints, served straight from node:http, count the same connection.
    expect((await runFrom(guesser, invalidKey())).status).toBe(429);

    // Another address is not held back by the guesser: its valid key works, its invalid one is a plain 401.
    const neighbour = loopback();
    expect((await meFrom(neighbour, user.apiKey)).status).toBe(200);
    expect((await meFrom(neighbour, invalidKey())).status).toBe(401);

    // Guesses spread over many addresses, none near its own limit, meet the ceiling instead.
    let ceiling: Awaited<ReturnType<typeof meFrom>> | undefined;
    for (let i = 0; i <= CEILING && !ceiling; i++) {
      const answer = await meFrom(loopback(), invalidKey());
      if (answer.status !== 401) ceiling = answer;
    }
    expect(ceiling).toMatchObject({ status: 429, message: expect.stringMatching(/Too many invalid API keys from all addresses/) });
    expect(Number(ceiling!.retryAfter)).toBeGreaterThan(0);
    // A valid key is never held back, from any address.
    expect((await meFrom(loopback(), user.apiKey)).status).toBe(200);
  });
});
