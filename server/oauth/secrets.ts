import { createHash, randomBytes } from "node:crypto";

// Codes and tokens: 256 random bits behind a prefix naming their kind; stored only as SHA-256.

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** RFC 7636 §4.2, S256: the challenge a verifier answers. */
export function codeChallengeOf(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export function verifierProblem(verifier: string | undefined): string | null {
  if (!verifier) return "code_verifier is required (PKCE)";
  return /^[A-Za-z0-9._~-]{43,128}$/.test(verifier) ? null : "code_verifier must be 43 to 128 unreserved characters";
}
