import { createCaller } from "@/server/trpc/root";
import { createTestUser } from "./helpers";

export type TestUser = Awaited<ReturnType<typeof createTestUser>>;
export type Caller = ReturnType<typeof createCaller>;

/**
 * The tRPC API called as `user` signed in with a browser session. The principal is given
 * directly: the test file must mock `@/server/auth/session` (Auth.js needs Next's runtime).
 */
export function callerAs(user: Pick<TestUser, "id" | "email" | "role">): Caller {
  return createCaller({ principal: { userId: user.id, email: user.email, role: user.role, via: "session" } });
}

/** A fresh user (with an API key) and the console's API as a fresh admin, for tests that run as one and look as the other. */
export async function userAndAdmin(): Promise<{ user: TestUser; admin: Caller }> {
  const [user, adminUser] = await Promise.all([createTestUser(), createTestUser({ role: "admin" })]);
  return { user, admin: callerAs(adminUser) };
}
