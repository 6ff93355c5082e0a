import "server-only";
import { z } from "zod";
import {
  authorizationServerMetadata,
  decideConsent,
  exchangeToken,
  protectedResourceMetadata,
  registerClient,
  revokeToken,
} from "../../oauth/service";
import { consentFormSchema, revocationFormSchema, tokenFormSchema, type OAuthResult } from "../../oauth/schemas";
import { formBody, jsonBody } from "../bodies";
import { endpoint } from "../endpoint";

// Dispatch as the OAuth authorization server of its MCP endpoint (docs/mcp.md#connect-with-oauth,
// server/oauth): the two metadata documents, client registration, the consent form's answer,
// the token and revocation endpoints. The authorize page itself is app/(auth)/oauth/authorize.
// OAuth's answers are its own JSON (`{error, error_description}`), never cached.

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

function oauthJson<T>(result: OAuthResult<T>): Response {
  return Response.json(result.body, { status: result.status, headers: NO_STORE });
}

// Metadata is public and the same for every caller at an origin: browsers' clients may read it cross-origin.
const metadata = (body: unknown) => Response.json(body, { headers: { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" } });

export const protectedResourceEndpoint = endpoint({
  method: "GET",
  path: "/.well-known/oauth-protected-resource",
  auth: "none",
  handle: async ({ origin }) => metadata(protectedResourceMetadata(origin())),
});

/** The path-suffixed form (RFC 9728 §3.1) the MCP SDK tries first. */
export const mcpProtectedResourceEndpoint = endpoint({
  method: "GET",
  path: "/.well-known/oauth-protected-resource/api/v1/mcp",
  auth: "none",
  handle: async ({ origin }) => metadata(protectedResourceMetadata(origin())),
});

export const authorizationServerEndpoint = endpoint({
  method: "GET",
  path: "/.well-known/oauth-authorization-server",
  auth: "none",
  handle: async ({ origin }) => metadata(authorizationServerMetadata(origin())),
});

export const registerClientEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/oauth/register",
  auth: "none",
  body: jsonBody(z.unknown()),
  handle: async ({ body }) => oauthJson(await registerClient(body)),
});

/** The consent page's form: 303 to the client's redirect URI with a code, or with access_denied. */
export const consentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/oauth/authorize",
  auth: "session",
  body: formBody(consentFormSchema),
  handle: async ({ body, origin, principal }) => {
    const location = await decideConsent(body, origin(), principal.userId);
    return new Response(null, { status: 303, headers: { location, ...NO_STORE } });
  },
});

export const tokenEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/oauth/token",
  auth: "none",
  body: formBody(tokenFormSchema),
  handle: async ({ body, origin }) => oauthJson(await exchangeToken(body, origin())),
});

export const revocationEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/oauth/revoke",
  auth: "none",
  body: formBody(revocationFormSchema),
  handle: async ({ body }) => oauthJson(await revokeToken(body)),
});
