import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { createUser } from "@/server/accounts/service/users";
import { createApiKey } from "@/server/accounts/service/api-keys";

/** The production server's base URL; fails clearly when there is no build to serve. */
export function baseUrl(): string {
  const url = inject("baseUrl");
  if (!url) throw new Error("No test server: run `npm run build` first (npm test does), or unset TEST_SKIP_SERVER.");
  return url;
}

export async function createTestUser(opts: { role?: "user" | "admin"; password?: string } = {}) {
  const email = `u-${randomUUID().slice(0, 8)}@test.dispatch`;
  const password = opts.password ?? "correct horse battery";
  const user = await createUser({ email, password, role: opts.role ?? "user" });
  const { key } = await createApiKey({ userId: user.id, name: "test" });
  return { ...user, password, apiKey: key };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
