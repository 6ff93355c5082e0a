import { createCaller } from "@/server/trpc/root";
import type { createTestUser } from "./helpers";

export type TestUser = Awaited<ReturnType<typeof createTestUser>>;
export type Caller = ReturnType<typeof createCaller>;

/**
 * The tRPC API called as `user` signed in with a browser session. The principal is given
 * directly: the test file must mock `@/server/auth/session` (Auth.js needs Next's runtime).
 */
export function callerAs(user: Pick<TestUser, "id" | "email" | "role">): Caller {
  return createCaller({ principal: { userId: user.id, email: user.email, role: user.role, via: "session" } });
}
