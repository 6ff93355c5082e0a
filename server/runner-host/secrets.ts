import "server-only";
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { env } from "../env";

// A runner's secret is shared both ways: the host presents it when it calls the runner, and
// the runner presents it to the host API. The host must read it back, so it is sealed with
// AES-256-GCM under a key derived from AUTH_SECRET (never stored in the clear), and looked up
// by its SHA-256 when a runner calls in.

const VERSION = "v1";

function key(): Buffer {
  if (!env.AUTH_SECRET) throw new Error("AUTH_SECRET is not set, so runner secrets cannot be sealed");
  return Buffer.from(hkdfSync("sha256", env.AUTH_SECRET, "dispatch", "dispatch/runner-secret/v1", 32));
}

export function hashRunnerSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export function sealRunnerSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

export function unsealRunnerSecret(sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error("runner secret has an unknown format");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

/** Secrets shorter than this are refused at registration: they are guessable. */
export const MIN_RUNNER_SECRET_LENGTH = 16;
