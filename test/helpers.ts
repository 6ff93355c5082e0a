import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { createUser } from "@/server/accounts/service/users";
import { createApiKey } from "@/server/accounts/service/api-keys";
import { setApprovalPolicy } from "@/server/approvals/service";

/** The production server's base URL; fails clearly when there is no build to serve. */
export function baseUrl(): string {
  const url = inject("baseUrl");
  if (!url) throw new Error("No test server: run `npm run build` first (npm test does), or unset TEST_SKIP_SERVER.");
  return url;
}

/**
 * A user with an API key. Test users ask for every write (`always`) unless a test names another
 * policy, `"default"` being the one a new user gets (server/approvals/policy.integration-test.ts):
 * the suite's approval flows are written with the memory writes a user of `always` is asked about.
 */
export async function createTestUser(opts: { role?: "user" | "admin"; password?: string; approvalPolicy?: "always" | "others" | "never" | "default" } = {}) {
  const email = `u-${randomUUID().slice(0, 8)}@test.dispatch`;
  const password = opts.password ?? "correct horse battery";
  const user = await createUser({ email, password, role: opts.role ?? "user" });
  const policy = opts.approvalPolicy ?? "always";
  if (policy !== "default") await setApprovalPolicy({ userId: user.id, policy });
  const { key } = await createApiKey({ userId: user.id, name: "test" });
  return { ...user, password, apiKey: key };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
