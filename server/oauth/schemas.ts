import { z } from "zod";

// What Dispatch's OAuth 2.1 authorization server accepts (docs/mcp.md#oauth): Dynamic Client
// Registration (RFC 7591) of public clients, the authorization request (RFC 6749 §4.1.1 with
// PKCE, RFC 7636, and a resource indicator, RFC 8707), and the token and revocation forms.

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
export const CODE_SECONDS = 5 * 60;
/** The MCP endpoint the tokens are for: the one resource this authorization server serves. */
export const MCP_PATH = "/api/v1/mcp";

// Prefixes tell a Dispatch credential's kind at a glance (and in a secret scanner's rules).
export const ACCESS_TOKEN_PREFIX = "dspat_";
export const REFRESH_TOKEN_PREFIX = "dsprt_";
export const CODE_PREFIX = "dspac_";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A redirect URI a public client may register: https, or http to the user's own machine; no fragment. */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an absolute URL";
  }
  if (url.hash || value.includes("#")) return "has a fragment";
  if (url.username || url.password) return "has credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "must be https, or http to localhost, 127.0.0.1 or [::1]";
}

const text = (max: number) => z.string().max(max);

export const registrationSchema = z.looseObject({
  redirect_uris: z.array(text(2000)).min(1).max(10),
  client_name: text(200).optional(),
  grant_types: z.array(text(100)).max(10).optional(),
  response_types: z.array(text(100)).max(10).optional(),
  token_endpoint_auth_method: text(100).optional(),
  scope: text(1000).optional(),
});
export type Registration = z.infer<typeof registrationSchema>;

/** The authorization request's parameters, as the authorize page and the consent form carry them. */
export const authorizeParamsSchema = z.object({
  response_type: text(50).optional(),
  client_id: text(100).optional(),
  redirect_uri: text(2000).optional(),
  code_challenge: text(200).optional(),
  code_challenge_method: text(50).optional(),
  state: text(2000).optional(),
  scope: text(1000).optional(),
  resource: text(2000).optional(),
});
export type AuthorizeParams = z.infer<typeof authorizeParamsSchema>;

export const consentFormSchema = authorizeParamsSchema.extend({ decision: z.enum(["allow", "deny"]) });
export type ConsentForm = z.infer<typeof consentFormSchema>;

/** The token endpoint's form; each grant checks what it needs. */
export const tokenFormSchema = z.object({
  grant_type: text(100).optional(),
  code: text(200).optional(),
  code_verifier: text(200).optional(),
  redirect_uri: text(2000).optional(),
  client_id: text(100).optional(),
  refresh_token: text(200).optional(),
  resource: text(2000).optional(),
  scope: text(1000).optional(),
});
export type TokenForm = z.infer<typeof tokenFormSchema>;

export const revocationFormSchema = z.object({
  token: text(200).optional(),
  token_type_hint: text(50).optional(),
  client_id: text(100).optional(),
});
export type RevocationForm = z.infer<typeof revocationFormSchema>;

/** RFC 6749 §5.2's error response, and RFC 7591 §3.2.2's for registration. */
export type OAuthErrorBody = { error: string; error_description?: string };
export type OAuthResult<T> = { ok: true; status: 200 | 201; body: T } | { ok: false; status: 400 | 401; body: OAuthErrorBody };
