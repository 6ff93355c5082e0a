import "server-only";
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { env } from "@/server/env";
import { ToolError } from "./errors";

// The controlled credential: minted by the server for one tool call of one run, one user and the
// run's modules, HMAC-signed with a key derived from AUTH_SECRET, valid for minutes. It travels
// only in the CLI child's environment, and the tool gateway (gateway.ts), in the server that
// minted it, verifies it: the child never holds the key. Nothing here ever puts a token into an
// error message. The tool call it names is the key a write is done once by (effects.ts): a CLI
// holding it cannot name another call, so it can neither repeat another call's effect nor read
// another call's result.

export const TOOL_CREDENTIAL_TTL_SECONDS = 300;
const MAX_TTL_SECONDS = 600;
const CLOCK_SKEW_SECONDS = 60;
const PREFIX = "dtc1";
// A runner's tool_call_id is at most 200 characters; the agent may suffix a provider's reused id.
const MAX_TOOL_CALL_ID_CHARS = 256;

const claimsSchema = z.strictObject({
  sub: z.string().min(1).max(64),
  run: z.string().min(1).max(128),
  mod: z.array(z.string().min(1).max(32)).max(16),
  call: z.string().min(1).max(MAX_TOOL_CALL_ID_CHARS),
  // The run the call was made in, when another run carries it (an approved call): absent means `run`.
  call_run: z.string().min(1).max(128).optional(),
  iat: z.number().int(),
  exp: z.number().int(),
  jti: z.string().min(8).max(64),
});

/** One tool call: the run it was made in and its id there. */
export type ToolCallKey = { runId: string; id: string };

export type ToolCredentialClaims = { userId: string; runId: string; modules: string[]; toolCall: ToolCallKey; expiresAt: Date };

/** The verification key the CLI gets (base64url), derived so AUTH_SECRET never leaves the server. */
export function toolCredentialKey(secret: string | undefined = env.AUTH_SECRET): string {
  if (!secret) throw new Error("AUTH_SECRET is not set, so project_cli credentials cannot be signed");
  return Buffer.from(hkdfSync("sha256", secret, "dispatch", "dispatch/project-cli/credential/v1", 32)).toString("base64url");
}

function sign(body: string, key: string): Buffer {
  return createHmac("sha256", Buffer.from(key, "base64url")).update(`${PREFIX}.${body}`).digest();
}

export function mintToolCredential(opts: {
  userId: string;
  runId: string;
  modules: readonly string[];
  /** The call this credential runs; its run defaults to `runId`. */
  toolCall: { id: string; runId?: string };
  key?: string;
  now?: Date;
  ttlSeconds?: number;
}): string {
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const claims = {
    sub: opts.userId,
    run: opts.runId,
    mod: [...opts.modules],
    call: opts.toolCall.id,
    ...(opts.toolCall.runId && opts.toolCall.runId !== opts.runId ? { call_run: opts.toolCall.runId } : {}),
    iat,
    exp: iat + Math.min(opts.ttlSeconds ?? TOOL_CREDENTIAL_TTL_SECONDS, MAX_TTL_SECONDS),
    jti: randomBytes(12).toString("base64url"),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${PREFIX}.${body}.${sign(body, opts.key ?? toolCredentialKey()).toString("base64url")}`;
}

const invalid = () => new ToolError("CREDENTIAL_INVALID", "The tool credential is malformed or its signature does not match");

/** Checks signature, shape and lifetime; throws a ToolError that never contains the token. */
export function verifyToolCredential(token: string | undefined, opts: { key: string | undefined; now?: Date }): ToolCredentialClaims {
  if (!token) throw new ToolError("CREDENTIAL_MISSING", "No tool credential was provided in the environment");
  if (!opts.key) throw new ToolError("CREDENTIAL_UNVERIFIABLE", "No verification key was provided in the environment");
  const [prefix, body, signature, ...rest] = token.split(".");
  if (prefix !== PREFIX || !body || !signature || rest.length > 0) throw invalid();
  const expected = sign(body, opts.key);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let claims: z.infer<typeof claimsSchema>;
  try {
    claims = claimsSchema.parse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
  } catch {
    throw invalid();
  }
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (claims.iat > now + CLOCK_SKEW_SECONDS || claims.exp - claims.iat > MAX_TTL_SECONDS) throw invalid();
  if (claims.exp <= now) throw new ToolError("CREDENTIAL_EXPIRED", "The tool credential has expired");
  return {
    userId: claims.sub,
    runId: claims.run,
    modules: claims.mod,
    toolCall: { runId: claims.call_run ?? claims.run, id: claims.call },
    expiresAt: new Date(claims.exp * 1000),
  };
}
