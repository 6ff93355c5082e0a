import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fact } from "@/server/approvals/test-support";
import { getPool } from "@/server/db";
import { startExtraServer, stopExtraServer } from "@/test/extra-server";
import { baseUrl, createTestUser } from "@/test/helpers";
import { callerAs } from "@/test/trpc-callers";
import { signInOverHttp } from "@/test/http-session";
import { waitFor } from "@/test/wait";
import { authorizeOverHttp, pkce, REDIRECT_URI, registerTestClient, SessionOAuthProvider, tokenRequest } from "@/test/oauth-client";

// Dispatch's MCP endpoint with OAuth, over real HTTP against the production server: the official
// SDK's Client finds the authorization server from the 401, registers itself, has a signed-in
// user consent on the authorize page, exchanges the code (PKCE) and calls Dispatch's tools.

// tRPC callers in this process (the settings' list) need no Auth.js.
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

type User = Awaited<ReturnType<typeof createTestUser>>;

const mcpUrl = () => new URL("/api/v1/mcp", baseUrl());
const open: Client[] = [];
const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/** The SDK's whole flow: 401, discovery, registration, consent, code exchange; a connected client. */
async function connectWithOAuth(user: User, provider?: SessionOAuthProvider) {
  const cookie = await signInOverHttp(user.email, user.password);
  const p = provider ?? new SessionOAuthProvider(cookie!);
  const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: p });
  await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(p.answer?.code).toMatch(/^dspac_/);
  await first.finishAuth(p.answer!.code!);
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: p }));
  open.push(client);
  return { client, provider: p };
}

const postMcp = (token: string) =>
  fetch(mcpUrl(), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });

/** A raw client and a code for it, the test making its own PKCE pair. */
async function codeFor(user: User, opts: { decision?: "allow" | "deny"; resource?: string } = {}) {
  const { client_id } = (await (await registerTestClient()).json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const url = new URL("/oauth/authorize", baseUrl());
  const params = { response_type: "code", client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: "S256", state: "s1", resource: opts.resource ?? mcpUrl().href };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const cookie = (await signInOverHttp(user.email, user.password))!;
  const { answer, location } = await authorizeOverHttp(url, cookie, opts.decision ?? "allow");
  return { clientId: client_id, verifier, answer, location, url, cookie };
}

const exchange = (c: { clientId: string; verifier: string; answer: { code?: string } }, over: Record<string, string> = {}) =>
  tokenRequest({ grant_type: "authorization_code", code: c.answer.code!, code_verifier: c.verifier, redirect_uri: REDIRECT_URI, client_id: c.clientId, resource: mcpUrl().href, ...over });

let alice: User;
let bob: User;

beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser({ approvalPolicy: "never" }), createTestUser({ approvalPolicy: "never" })]);
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

describe("OAuth for Dispatch's MCP endpoint", () => {
  it("answers a request without credentials 401 naming its metadata, which names Dispatch as the authorization server", async () => {
    const res = await fetch(mcpUrl(), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    expect(challenge).not.toContain("invalid_token");
    const resource = (await (await fetch(metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    expect(resource.resource).toBe(mcpUrl().href);
    expect(await (await fetch(new URL("/.well-known/oauth-protected-resource", baseUrl()))).json()).toEqual(resource);
    const server = (await (await fetch(new URL("/.well-known/oauth-authorization-server", resource.authorization_servers[0]))).json()) as Record<string, unknown>;
    expect(server).toMatchObject({ issuer: resource.authorization_servers[0], code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"] });
  });

  it("connects the SDK's client through registration, consent and PKCE, and calls tools as the user", async () => {
    const { client, provider } = await connectWithOAuth(alice);
    expect(provider.page).toContain("Test Assistant wants to use your Dispatch calendar, contacts and memory");
    expect(provider.saved).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(provider.saved!.refresh_token).toMatch(/^dsprt_/);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("memory_update");
    const key = `oauth_${Date.now()}`;
    const written = (await client.callTool({ name: "memory_update", arguments: { facts: [{ key, value: "green tea" }] } })) as CallToolResult;
    expect(written.isError).toBeFalsy();
    expect(await fact(alice.id, key)).toBe("green tea");
    // The write is recorded under the OAuth grant, as an API key's are under the key.
    const { rows } = await getPool().query<{ runId: string }>(`select run_id as "runId" from tool_effects where user_id = $1 and run_id like 'mcp:oauth:%'`, [alice.id]);
    expect(rows.length).toBeGreaterThan(0);

    // Bob's client reads Bob's memory, never Alice's.
    const bobs = (await connectWithOAuth(bob)).client;
    const read = (await bobs.callTool({ name: "memory_read", arguments: {} })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    expect(text(read)).not.toContain(key);
  });

  it("rotates refresh tokens; a refresh token used twice revokes the grant", async () => {
    const { provider } = await connectWithOAuth(alice);
    const first = provider.saved!;
    const body = { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: provider.info!.client_id };
    const rotated = await tokenRequest(body);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect((await postMcp(next.access_token)).status).toBe(200);
    // A deactivated user's client gets no new tokens; reactivated, it may go on.
    await getPool().query(`update users set disabled_at = now() where id = $1`, [alice.id]);
    const whileDisabled = await tokenRequest({ ...body, refresh_token: next.refresh_token });
    await getPool().query(`update users set disabled_at = null where id = $1`, [alice.id]);
    expect(await whileDisabled.json()).toMatchObject({ error: "invalid_grant" });
    const replay = await tokenRequest(body);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
    const refused = await postMcp(next.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("refuses a code with the wrong PKCE verifier, another redirect URI, or a second time", async () => {
    const wrongVerifier = await codeFor(alice);
    const pkceRes = await exchange(wrongVerifier, { code_verifier: pkce().verifier });
    expect(pkceRes.status).toBe(400);
    expect(await pkceRes.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("code_verifier") });

    const wrongRedirect = await codeFor(alice);
    const redirectRes = await exchange(wrongRedirect, { redirect_uri: "http://127.0.0.1:9/other" });
    expect(await redirectRes.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("redirect_uri") });

    const reused = await codeFor(alice);
    expect(reused.answer.state).toBe("s1");
    const ok = await exchange(reused);
    expect(ok.status).toBe(200);
    const { access_token } = (await ok.json()) as { access_token: string };
    expect((await postMcp(access_token)).status).toBe(200);
    const again = await exchange(reused);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
    // The code may have been stolen: what it gave is revoked.
    expect((await postMcp(access_token)).status).toBe(401);
  });

  it("shows, never follows, a redirect URI the client did not register, and sends Deny back as access_denied", async () => {
    const c = await codeFor(alice, { decision: "deny" });
    expect(c.answer).toEqual({ error: "access_denied", state: "s1", code: undefined });
    const foreign = new URL(c.url);
    foreign.searchParams.set("redirect_uri", "https://evil.example/callback");
    const page = await fetch(foreign, { headers: { cookie: c.cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("did not register");
    const wrongResource = await codeFor(alice, { resource: `${baseUrl()}/api/v1/other` }).catch((err: Error) => err);
    expect(String(wrongResource)).toContain("307");
    // The right path at another origin is caught by the consent form, which knows the origin.
    const otherOrigin = await codeFor(alice, { resource: "https://elsewhere.example/api/v1/mcp" });
    expect(otherOrigin.answer).toMatchObject({ error: "invalid_target", state: "s1", code: undefined });
  });

  it("sends a signed-out user to sign in and back, refuses the consent form without a session or from another site, and is never framed", async () => {
    const c = await codeFor(alice);
    const signedOut = await fetch(c.url, { redirect: "manual" });
    expect(signedOut.status).toBe(307);
    const signIn = new URL(signedOut.headers.get("location")!, baseUrl());
    expect(signIn.pathname).toBe("/sign-in");
    expect(signIn.searchParams.get("callbackUrl")).toMatch(/^\/oauth\/authorize\?/);
    const form = new URLSearchParams(c.url.searchParams);
    form.set("decision", "allow");
    const post = (headers: Record<string, string>) =>
      fetch(`${baseUrl()}/api/v1/oauth/authorize`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: form, redirect: "manual" });
    expect((await post({})).status).toBe(401);
    expect((await post({ cookie: c.cookie, "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ cookie: c.cookie, "sec-fetch-site": "same-site" })).status).toBe(403);
    // Nor is the page shown in another site's frame.
    const shown = await fetch(c.url, { headers: { cookie: c.cookie } });
    expect(shown.headers.get("x-frame-options")).toBe("DENY");
    expect(shown.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
  });

  it("answers an expired or unknown access token 401 invalid_token, and registers only https or loopback redirect URIs", async () => {
    const c = await codeFor(alice);
    const { access_token } = (await (await exchange(c)).json()) as { access_token: string };
    await getPool().query(`update oauth_tokens set expires_at = now() - interval '1 second' where grant_id = (select grant_id from oauth_codes where client_id = $1)`, [c.clientId]);
    for (const token of [access_token, "dspat_unknown"]) {
      const res = await postMcp(token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token", resource_metadata="/);
      expect(await res.text()).not.toContain(token);
    }
    const refused = await registerTestClient(["http://example.com/callback"]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_redirect_uri" });
    expect((await registerTestClient(["https://app.example/cb", "http://localhost:33418/cb"])).status).toBe(201);
  });

  it("lists the user's connected clients in the settings, and disconnecting one ends its tokens", async () => {
    const carol = await createTestUser();
    const { provider } = await connectWithOAuth(carol);
    const listed = await callerAs(carol).mcpClients.list();
    expect(listed.map((c) => c.clientName)).toEqual(["Test Assistant"]);
    expect(await callerAs(alice).mcpClients.list().then((l) => l.map((c) => c.grantId))).not.toContain(listed[0]!.grantId);
    await expect(callerAs(alice).mcpClients.disconnect({ grantId: listed[0]!.grantId })).rejects.toThrow();
    await callerAs(carol).mcpClients.disconnect({ grantId: listed[0]!.grantId });
    expect((await postMcp(provider.saved!.access_token)).status).toBe(401);
    expect(await callerAs(carol).mcpClients.list()).toEqual([]);
  });

  it("keeps codes and tokens out of an instance's logs, at debug level, through a whole flow", async () => {
    let logs = "";
    const extra = await startExtraServer({ LOG_LEVEL: "debug" }, { onOutput: (out) => (logs += out) });
    try {
      const base = extra.url;
      const { client_id } = (await (await registerTestClient([REDIRECT_URI], base)).json()) as { client_id: string };
      const { verifier, challenge } = pkce();
      const url = new URL("/oauth/authorize", base);
      const params = { response_type: "code", client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: `${base}/api/v1/mcp` };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const cookie = (await signInOverHttp(alice.email, alice.password, base))!;
      const { answer } = await authorizeOverHttp(url, cookie, "allow", base);
      const fields = { grant_type: "authorization_code", code: answer.code!, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id, resource: `${base}/api/v1/mcp` };
      const tokens = (await (await tokenRequest(fields, base)).json()) as { access_token: string; refresh_token: string };
      const call = (token: string) =>
        fetch(`${base}/api/v1/mcp`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory_read", arguments: {} } }),
        });
      expect((await call(tokens.access_token)).status).toBe(200);
      const next = (await (await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id }, base)).json()) as { access_token: string; refresh_token: string };
      expect((await call(next.access_token)).status).toBe(200);
      expect((await tokenRequest(fields, base)).status).toBe(400); // the code again: refused, and its grant revoked
      expect((await call(next.access_token)).status).toBe(401);
      expect((await call(`${tokens.access_token}x`)).status).toBe(401);
      await waitFor(() => logs.includes("/api/v1/oauth/token"), 10_000);
      await waitFor(() => logs.includes("project_cli call"), 10_000);
      for (const secret of [answer.code!, tokens.access_token, tokens.refresh_token, next.access_token, next.refresh_token, verifier]) expect(logs).not.toContain(secret);
    } finally {
      await stopExtraServer(extra);
    }
  });
});
