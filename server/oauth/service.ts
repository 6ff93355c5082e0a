import "server-only";
import { AppError } from "@/server/kernel/errors";
import { codeChallengeOf, hashSecret, newSecret, verifierProblem } from "./secrets";
import * as repo from "./repository";
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_SECONDS,
  CODE_PREFIX,
  CODE_SECONDS,
  MCP_PATH,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_SECONDS,
  redirectUriProblem,
  registrationSchema,
  type AuthorizeParams,
  type ConsentForm,
  type OAuthResult,
  type RevocationForm,
  type TokenForm,
} from "./schemas";

// Dispatch as the OAuth 2.1 authorization server of its own MCP endpoint, as the MCP
// authorization spec (2025-06-18) has clients expect: protected-resource metadata (RFC 9728)
// names Dispatch itself; clients register themselves (RFC 7591, public clients only); a signed-in
// user consents on /oauth/authorize; codes need PKCE S256 and are bound to the MCP endpoint as
// their resource (RFC 8707); access tokens live an hour, refresh tokens rotate. Every code and
// token is stored hashed; none is ever logged or put in an error.

export { listConnectedClients } from "./repository";
export { MCP_PATH } from "./schemas";

/** The URLs of this authorization server and its one resource, at the origin the caller used. */
export function oauthUrls(origin: string) {
  return {
    issuer: origin,
    resource: `${origin}${MCP_PATH}`,
    resourceMetadata: `${origin}/.well-known/oauth-protected-resource${MCP_PATH}`,
    authorization: `${origin}/oauth/authorize`,
    token: `${origin}/api/v1/oauth/token`,
    registration: `${origin}/api/v1/oauth/register`,
    revocation: `${origin}/api/v1/oauth/revoke`,
  };
}

/** RFC 9728 protected-resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(origin: string) {
  const urls = oauthUrls(origin);
  return { resource: urls.resource, authorization_servers: [urls.issuer], bearer_methods_supported: ["header"], resource_name: "Dispatch" };
}

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(origin: string) {
  const urls = oauthUrls(origin);
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorization,
    token_endpoint: urls.token,
    registration_endpoint: urls.registration,
    revocation_endpoint: urls.revocation,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    // The redirect carries `iss` (RFC 9207), so a client talking to several servers can tell whose code it got.
    authorization_response_iss_parameter_supported: true,
  };
}

const fail = (status: 400 | 401, error: string, description: string) => ({ ok: false as const, status, body: { error, error_description: description } });

/** RFC 7591 registration of a public client: it gets a client_id and no secret. */
export async function registerClient(body: unknown): Promise<OAuthResult<Record<string, unknown>>> {
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) return fail(400, "invalid_client_metadata", "redirect_uris (1 to 10 URLs) is required; client_name is text");
  for (const uri of parsed.data.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return fail(400, "invalid_redirect_uri", `A redirect URI ${problem}`);
  }
  const name = (parsed.data.client_name ?? "").trim() || "An MCP client";
  const client = await repo.insertClient({ name, redirectUris: parsed.data.redirect_uris });
  return {
    ok: true,
    status: 201,
    body: {
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
  };
}

export type AuthorizeCheck =
  /** The request cannot be trusted to redirect anywhere: the page shows `message`. */
  | { kind: "invalid"; message: string }
  /** The client is told (at its redirect URI) what is wrong. */
  | { kind: "redirect"; location: string }
  | { kind: "consent"; clientName: string; redirectHost: string; params: AuthorizeParams };

/** Where the client gets its answer: its redirect URI with the parameters added. */
export function redirectWith(redirectUri: string, values: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Checks an authorization request: the authorize page's, and again the consent form's. The page
 * passes no `origin` (a page rendered for a server action's redirect may not know the one the
 * browser used), so there only the resource's path is checked; the form checks the whole URL.
 */
export async function checkAuthorizeRequest(params: AuthorizeParams, origin: string | null): Promise<AuthorizeCheck> {
  const client = params.client_id ? await repo.findClient({ id: params.client_id }) : null;
  if (!client) return { kind: "invalid", message: "unknownClient" };
  if (!params.redirect_uri || !client.redirectUris.includes(params.redirect_uri)) return { kind: "invalid", message: "badRedirect" };
  const refuse = (error: string, description: string): AuthorizeCheck => ({
    kind: "redirect",
    location: redirectWith(params.redirect_uri!, { error, error_description: description, state: params.state }),
  });
  if (params.response_type !== "code") return refuse("unsupported_response_type", "response_type must be code");
  if (params.code_challenge_method !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge ?? "")) {
    return refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256");
  }
  const given = params.resource?.replace(/\/$/, "");
  const resource = origin === null ? undefined : oauthUrls(origin).resource;
  const fits = given === undefined || (resource ? given === resource : URL.canParse(given) && new URL(given).pathname === MCP_PATH);
  if (!fits) return refuse("invalid_target", `resource must be ${resource ?? `this server's ${MCP_PATH}`}`);
  return { kind: "consent", clientName: client.name, redirectHost: new URL(params.redirect_uri).host, params: { ...params, resource: resource ?? params.resource } };
}

/** The user's answer on the consent page: where to send the browser (a code, or access_denied). */
export async function decideConsent(form: ConsentForm, origin: string, userId: string): Promise<string> {
  const { decision, ...params } = form;
  const check = await checkAuthorizeRequest(params, origin);
  if (check.kind === "invalid") throw new AppError("BAD_REQUEST", "This authorization request is not valid: its client or redirect URI is unknown");
  if (check.kind === "redirect") return check.location;
  const { redirect_uri, state } = check.params;
  if (decision === "deny") return redirectWith(redirect_uri!, { error: "access_denied", error_description: "The user denied access", state });
  const code = newSecret(CODE_PREFIX);
  await repo.insertCode({
    codeHash: hashSecret(code),
    clientId: check.params.client_id!,
    userId,
    redirectUri: redirect_uri!,
    codeChallenge: check.params.code_challenge!,
    resource: check.params.resource!,
    seconds: CODE_SECONDS,
  });
  return redirectWith(redirect_uri!, { code, state, iss: oauthUrls(origin).issuer });
}

function newPair() {
  const access = newSecret(ACCESS_TOKEN_PREFIX);
  const refresh = newSecret(REFRESH_TOKEN_PREFIX);
  const hashes = { accessHash: hashSecret(access), refreshHash: hashSecret(refresh), accessSeconds: ACCESS_TOKEN_SECONDS, refreshSeconds: REFRESH_TOKEN_SECONDS };
  const body = { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh };
  return { hashes, body };
}

export type TokenResponse = ReturnType<typeof newPair>["body"];

/** The token endpoint: an authorization code (with its PKCE verifier) or a refresh token for a new pair. */
export async function exchangeToken(form: TokenForm, origin: string): Promise<OAuthResult<TokenResponse>> {
  if (!form.client_id) return fail(401, "invalid_client", "client_id is required");
  const resource = oauthUrls(origin).resource;
  if (form.resource !== undefined && form.resource.replace(/\/$/, "") !== resource) return fail(400, "invalid_target", `resource must be ${resource}`);
  if (form.grant_type === "authorization_code") return exchangeCode(form, form.client_id);
  if (form.grant_type === "refresh_token") {
    if (!form.refresh_token) return fail(400, "invalid_request", "refresh_token is required");
    const pair = newPair();
    const rotated = await repo.rotateRefreshToken({ refreshHash: hashSecret(form.refresh_token), clientId: form.client_id, tokens: pair.hashes });
    return rotated ? { ok: true, status: 200, body: pair.body } : fail(400, "invalid_grant", "The refresh token is not valid");
  }
  return fail(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}

async function exchangeCode(form: TokenForm, clientId: string): Promise<OAuthResult<TokenResponse>> {
  if (!form.code || !form.redirect_uri) return fail(400, "invalid_request", "code and redirect_uri are required");
  const problem = verifierProblem(form.code_verifier);
  if (problem) return fail(400, "invalid_request", problem);
  const codeHash = hashSecret(form.code);
  // Used up whatever follows: a code that fails a check is not tried again.
  const code = await repo.consumeCode({ codeHash });
  if (!code) return fail(400, "invalid_grant", "The authorization code is not valid (unknown, expired or already used)");
  if (code.clientId !== clientId) return fail(400, "invalid_grant", "The authorization code was issued to another client");
  if (code.redirectUri !== form.redirect_uri) return fail(400, "invalid_grant", "redirect_uri differs from the authorization request's");
  if (codeChallengeOf(form.code_verifier!) !== code.codeChallenge) return fail(400, "invalid_grant", "code_verifier does not match the code_challenge");
  const pair = newPair();
  await repo.insertGrant({ codeHash, userId: code.userId, clientId, resource: code.resource, tokens: pair.hashes });
  return { ok: true, status: 200, body: pair.body };
}

/** RFC 7009: revoking a token of the client's revokes its grant; an unknown token is no error. */
export async function revokeToken(form: RevocationForm): Promise<OAuthResult<Record<string, never>>> {
  if (!form.client_id) return fail(401, "invalid_client", "client_id is required");
  if (!form.token) return fail(400, "invalid_request", "token is required");
  await repo.revokeGrantOfToken({ tokenHash: hashSecret(form.token), clientId: form.client_id });
  return { ok: true, status: 200, body: {} };
}

/** Whether a bearer credential is one of this server's access tokens (else it may be an API key). */
export function isAccessToken(token: string): boolean {
  return token.startsWith(ACCESS_TOKEN_PREFIX) || token.startsWith(REFRESH_TOKEN_PREFIX);
}

/** The user an access token for the MCP endpoint acts for; 401 (`invalid_token`) when it is not live. */
export async function authenticateAccessToken(token: string, origin: string): Promise<repo.AccessTokenOwner> {
  const owner = token.startsWith(ACCESS_TOKEN_PREFIX) ? await repo.findAccessTokenOwner({ tokenHash: hashSecret(token), resource: oauthUrls(origin).resource }) : null;
  if (!owner) throw new AppError("UNAUTHORIZED", "The access token is not valid (expired, revoked or unknown)", { oauthError: "invalid_token" });
  return owner;
}

/** Ends one of the user's MCP client connections (the chat settings' list). */
export async function disconnectClient(data: { userId: string; grantId: string }): Promise<void> {
  if (!(await repo.revokeUserGrant(data))) throw new AppError("NOT_FOUND", "No such connected client");
}
