import "server-only";
import { createHmac, randomBytes } from "node:crypto";

// The Standard Webhooks signature scheme (https://www.standardwebhooks.com), so any of its
// libraries verifies what we send: HMAC-SHA256, keyed with the secret's base64-decoded bytes, over
// `${webhook-id}.${webhook-timestamp}.${body}`, sent base64 as `v1,<signature>`; several
// signatures (a rotation's old and new secret) go space-separated in one header.

const PREFIX = "whsec_";

/** A new signing secret: 24 random bytes, as Standard Webhooks libraries expect them. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString("base64");
}

function signature(secret: string, content: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(content, "utf8").digest("base64")}`;
}

/** The headers of one attempt: `secrets` sign it each (the current one first). */
export function webhookHeaders({ id, body, secrets, now = new Date() }: { id: string; body: string; secrets: readonly string[]; now?: Date }): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": secrets.map((s) => signature(s, `${id}.${timestamp}.${body}`)).join(" "),
  };
}
