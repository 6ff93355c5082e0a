import "server-only";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { env } from "../env";

// Secrets the server must read back (a runner's shared secret, an MCP server's auth headers) are
// sealed with AES-256-GCM under a key derived from AUTH_SECRET, one key per purpose, and never
// stored in the clear. Format: v1.<iv>.<tag>.<body>, base64url.

const VERSION = "v1";

function key(purpose: string): Buffer {
  if (!env.AUTH_SECRET) throw new Error(`AUTH_SECRET is not set, so ${purpose} secrets cannot be sealed`);
  return Buffer.from(hkdfSync("sha256", env.AUTH_SECRET, "dispatch", `dispatch/${purpose}/v1`, 32));
}

export function sealSecret(purpose: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(purpose), iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

export function unsealSecret(purpose: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error(`${purpose} secret has an unknown format`);
  const decipher = createDecipheriv("aes-256-gcm", key(purpose), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
