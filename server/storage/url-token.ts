import "server-only";
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { env } from "../env";
import { AppError } from "../kernel/errors";

// Tokens for the local driver's signed URLs: compact HS256 JWTs, as Supabase's signed URLs
// carry, naming the object ("bucket/path"), the operation and the expiry. The key is
// derived from AUTH_SECRET with HKDF so it can never sign a session, nor a session token
// a URL.

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

const TokenClaimsSchema = z.object({
  url: z.string().min(1),
  op: z.enum(["get", "put"]),
  exp: z.number().int(),
  iat: z.number().int(),
  // Makes every URL distinct, so a re-signed URL is never the stale one it replaces.
  jti: z.string(),
  ct: z.string().optional(),
  len: z.number().int().nonnegative().optional(),
});

export type TokenClaims = z.infer<typeof TokenClaimsSchema>;

export type TokenCheck =
  | { ok: true; claims: TokenClaims }
  | { ok: false; reason: "malformed" | "signature" | "expired" | "object" | "operation" };

let cachedKey: { secret: string; key: Buffer } | undefined;

function signingKey(): Buffer {
  const secret = env.AUTH_SECRET;
  if (!secret) throw new AppError("INTERNAL", "AUTH_SECRET is not set; local storage URLs cannot be signed");
  if (cachedKey?.secret !== secret) {
    cachedKey = { secret, key: Buffer.from(hkdfSync("sha256", secret, "dispatch-storage", "local signed url v1", 32)) };
  }
  return cachedKey.key;
}

const mac = (input: string) => createHmac("sha256", signingKey()).update(input).digest();

export function objectClaim(bucket: string, path: string): string {
  return `${bucket}/${path}`;
}

/** Signs a token for one operation on one object, valid until `expiresAt`. */
export function signUrlToken(opts: {
  bucket: string;
  path: string;
  op: "get" | "put";
  expiresAt: Date;
  contentType?: string;
  contentLength?: number;
}): string {
  const claims: TokenClaims = {
    url: objectClaim(opts.bucket, opts.path),
    op: opts.op,
    exp: Math.floor(opts.expiresAt.getTime() / 1000),
    iat: Math.floor(Date.now() / 1000),
    jti: randomBytes(9).toString("base64url"),
    ...(opts.contentType === undefined ? {} : { ct: opts.contentType }),
    ...(opts.contentLength === undefined ? {} : { len: opts.contentLength }),
  };
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${body}.${mac(body).toString("base64url")}`;
}

/** Verifies signature first, then expiry, object and operation; nothing is trusted before the signature. */
export function verifyUrlToken(token: string | null, expected: { bucket: string; path: string; op: "get" | "put" }, now = Date.now()): TokenCheck {
  const parts = (token ?? "").split(".");
  if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, reason: "malformed" };
  const given = Buffer.from(parts[2]!, "base64url");
  const wanted = mac(`${parts[0]}.${parts[1]}`);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return { ok: false, reason: "signature" };
  let claims: TokenClaims;
  try {
    const parsed = TokenClaimsSchema.safeParse(JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")));
    if (!parsed.success) return { ok: false, reason: "malformed" };
    claims = parsed.data;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (claims.exp * 1000 <= now) return { ok: false, reason: "expired" };
  if (claims.url !== objectClaim(expected.bucket, expected.path)) return { ok: false, reason: "object" };
  if (claims.op !== expected.op) return { ok: false, reason: "operation" };
  return { ok: true, claims };
}

