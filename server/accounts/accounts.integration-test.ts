import { describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { createApiKey, revokeApiKey } from "./service/api-keys";
import { listApiKeysPage, markApiKeyRevoked } from "./repository/api-keys";
import { findUserByEmail, listUsersPage, updateUserRole } from "./repository/users";

// The admin console's user and API key lists, read with plain SQL: pages that add up, the
// counts and owner emails the console shows, and timestamps as Dates.

describe("users and API keys", () => {
  it("pages users newest first with a cursor, no gaps or repeats, counting only live keys", async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const c = await createTestUser();
    await createApiKey({ userId: b.id, name: "second" });
    const revoked = await createApiKey({ userId: b.id, name: "revoked" });
    await revokeApiKey({ id: revoked.record.id });

    const seen: Awaited<ReturnType<typeof listUsersPage>>["items"] = [];
    let cursor: string | undefined;
    do {
      const page = await listUsersPage({ limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);

    expect(new Set(seen.map((u) => u.id)).size).toBe(seen.length);
    const mine = seen.filter((u) => [a.id, b.id, c.id].includes(u.id));
    expect(mine.map((u) => u.id)).toEqual([c.id, b.id, a.id]);
    expect(mine.find((u) => u.id === b.id)).toMatchObject({ email: b.email, role: "user", activeApiKeys: 2 });
    expect(mine[0]!.createdAt).toBeInstanceOf(Date);
  });

  it("pages one user's keys with their owner's email, and revokes a key once", async () => {
    const user = await createTestUser();
    const second = await createApiKey({ userId: user.id, name: "second" });
    const first = await listApiKeysPage({ userId: user.id, limit: 1 });
    const rest = await listApiKeysPage({ userId: user.id, limit: 1, cursor: first.nextCursor! });
    expect(rest.nextCursor).toBeNull();
    // Newest first; two keys made within one millisecond (timestamps keep milliseconds) go by id.
    const paged = [...first.items, ...rest.items];
    const newestFirst = [...paged].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (y.id > x.id ? 1 : -1));
    expect(paged.map((k) => k.id)).toEqual(newestFirst.map((k) => k.id));
    expect(paged.map((k) => k.name).sort()).toEqual(["second", "test"]);
    expect(paged.find((k) => k.id === second.record.id)).toMatchObject({ name: "second", user: { email: user.email }, revokedAt: null });

    expect(await markApiKeyRevoked({ id: second.record.id })).toEqual({ count: 1 });
    expect(await markApiKeyRevoked({ id: second.record.id })).toEqual({ count: 0 });
    const revoked = (await listApiKeysPage({ userId: user.id, limit: 2 })).items.find((k) => k.id === second.record.id);
    expect(revoked!.revokedAt).toBeInstanceOf(Date);
  });

  it("changes a role, and says NOT_FOUND for a user that does not exist", async () => {
    const user = await createTestUser();
    expect(await updateUserRole({ id: user.id, role: "admin" })).toMatchObject({ id: user.id, role: "admin" });
    expect(await findUserByEmail({ email: user.email })).toMatchObject({ role: "admin", passwordHash: expect.any(String) });
    await expect(updateUserRole({ id: "00000000-0000-0000-0000-000000000000", role: "user" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
