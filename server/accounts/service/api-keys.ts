import "server-only";
import { randomBytes } from "node:crypto";
import { API_KEY_PREFIX, hashApiKey } from "../../auth/api-keys";
import { AppError } from "../../kernel/errors";
import { findApiKeyById, insertApiKey, listApiKeysForUser, listApiKeysPage, markApiKeyRevoked, setApiKeyAutoApprove } from "../repository/api-keys";
import { findUserByEmail } from "../repository/users";

// Issuing, listing and revoking keys. Reading a key on a request is authentication (auth/api-keys.ts).

/** `autoApprove`: runs the key starts run project_cli writes without asking a person (automation; docs/approvals.md). */
export async function createApiKey({ userId, name, autoApprove = false }: { userId: string; name?: string; autoApprove?: boolean }) {
  const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const record = await insertApiKey({
    userId,
    name: name?.trim() || "API key",
    prefix: key.slice(0, 12),
    keyHash: hashApiKey(key),
    autoApprove,
  });
  return { key, record };
}

export async function createApiKeyForEmail({ email, name, autoApprove }: { email: string; name?: string; autoApprove?: boolean }) {
  const user = await findUserByEmail({ email: email.trim().toLowerCase() });
  if (!user) throw new AppError("NOT_FOUND", `No user with email ${email}`);
  return createApiKey({ userId: user.id, name, autoApprove });
}

export function listApiKeys({ userId }: { userId: string }) {
  return listApiKeysForUser({ userId });
}

/** One page of keys for the admin console, all users' or one user's. */
export function listApiKeyPage(page: Parameters<typeof listApiKeysPage>[0]) {
  return listApiKeysPage(page);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Turns "approves its own changes" on or off for an existing key; runs it starts from now on follow. */
export async function updateApiKeyAutoApprove({ id, autoApprove }: { id: string; autoApprove: boolean }) {
  const updated = UUID.test(id) ? await setApiKeyAutoApprove({ id, autoApprove }) : null;
  if (!updated) throw new AppError("NOT_FOUND", "API key not found");
  return updated;
}

export async function revokeApiKey({ id }: { id: string }) {
  const existing = UUID.test(id) ? await findApiKeyById({ id }) : null;
  if (!existing) throw new AppError("NOT_FOUND", "API key not found");
  await markApiKeyRevoked({ id });
  return { ...existing, revokedAt: existing.revokedAt ?? new Date() };
}
