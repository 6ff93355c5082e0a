import { describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { setUserRole } from "./users";

describe("setUserRole", () => {
  it("refuses an admin removing their own admin role, and leaves it in place", async () => {
    const admin = await createTestUser({ role: "admin" });
    await expect(setUserRole({ actorId: admin.id, id: admin.id, role: "user" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "You cannot remove your own admin role",
    });
    expect(await setUserRole({ actorId: admin.id, id: admin.id, role: "admin" })).toMatchObject({ id: admin.id, role: "admin" });
  });

  it("lets an admin change another user's role either way", async () => {
    const [admin, other] = await Promise.all([createTestUser({ role: "admin" }), createTestUser()]);
    expect(await setUserRole({ actorId: admin.id, id: other.id, role: "admin" })).toMatchObject({ id: other.id, role: "admin" });
    expect(await setUserRole({ actorId: admin.id, id: other.id, role: "user" })).toMatchObject({ id: other.id, role: "user" });
  });
});
