import { createHash, randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { baseUrl } from "./helpers";

// An MCP client's side of Dispatch's OAuth (server/oauth), for tests: the SDK's
// OAuthClientProvider whose "browser" is a signed-in user's session cookie. It opens the
// authorize page over HTTP and posts the consent form's answer; the code comes back in the
// redirect's Location, which is never followed (nothing listens at the redirect URI).

export const REDIRECT_URI = "http://127.0.0.1:9/callback";

export class SessionOAuthProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  /** The last authorization's answer: its code, or its error, and the state it carried. */
  answer?: { code?: string; error?: string; state?: string };
  /** The authorize page's HTML, as the user saw it. */
  page?: string;

  constructor(
    private readonly cookie: string,
    private readonly decision: "allow" | "deny" = "allow",
    readonly clientName = "Test Assistant",
  ) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.clientName, redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return `state-${randomBytes(4).toString("hex")}`;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
  async redirectToAuthorization(url: URL) {
    const { page, answer } = await authorizeOverHttp(url, this.cookie, this.decision);
    this.page = page;
    this.answer = answer;
  }
}

/** Opens the authorize page as the signed-in user and answers it; the redirect's parameters. */
export async function authorizeOverHttp(url: URL, cookie: string, decision: "allow" | "deny", base = baseUrl()) {
  const shown = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const page = await shown.text();
  if (shown.status !== 200) throw new Error(`the authorize page answered ${shown.status}`);
  const form = new URLSearchParams(url.searchParams);
  form.set("decision", decision);
  const res = await fetch(`${base}/api/v1/oauth/authorize`, { method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body: form, redirect: "manual" });
  const location = res.headers.get("location");
  if (res.status !== 303 || !location) throw new Error(`the consent form answered ${res.status}`);
  const back = new URL(location);
  const answer = { code: back.searchParams.get("code") ?? undefined, error: back.searchParams.get("error") ?? undefined, state: back.searchParams.get("state") ?? undefined };
  return { page, answer, location: back };
}

/** A PKCE pair (RFC 7636, S256). */
export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function registerTestClient(redirectUris = [REDIRECT_URI], base = baseUrl()): Promise<Response> {
  return fetch(`${base}/api/v1/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Raw Client", redirect_uris: redirectUris }) });
}

export function tokenRequest(fields: Record<string, string>, base = baseUrl()): Promise<Response> {
  return fetch(`${base}/api/v1/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
}
