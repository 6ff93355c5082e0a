import { describe, expect, it, vi } from "vitest";

vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

import { createBinding, createEndpoint } from "@/server/runner-host/api/test-fixtures";
import { createTestUser } from "@/test/helpers";
import { callerAs } from "@/test/trpc-callers";

// What the chat's own lists (tRPC `…mine`) show a user: only what is theirs. The webhooks of the
// settings section (docs/webhooks.md) and the agents of the composer's picker (docs/agents.md).

describe("a user's own lists", () => {
  it("webhooks: each user sees, changes and deletes only their own endpoints", async () => {
    const [ana, ben] = await Promise.all([createTestUser(), createTestUser()]);
    const made = await callerAs(ana).webhooks.createMine({ url: "http://127.0.0.1:9/ana", description: "mine" });
    expect(made.secret).toMatch(/^whsec_/);
    expect((await callerAs(ana).webhooks.mine()).map((e) => e.id)).toEqual([made.id]);
    expect(await callerAs(ben).webhooks.mine()).toEqual([]);

    const notFound = { code: "NOT_FOUND" };
    await expect(callerAs(ben).webhooks.updateMine({ id: made.id, enabled: false })).rejects.toMatchObject(notFound);
    await expect(callerAs(ben).webhooks.myDeliveries({ endpointId: made.id, limit: 10 })).rejects.toMatchObject(notFound);
    await expect(callerAs(ben).webhooks.removeMine({ id: made.id })).rejects.toMatchObject(notFound);

    expect(await callerAs(ana).webhooks.updateMine({ id: made.id, enabled: false })).toMatchObject({ enabled: false });
    expect(await callerAs(ana).webhooks.myDeliveries({ endpointId: made.id, limit: 10 })).toEqual([]);
    await callerAs(ana).webhooks.removeMine({ id: made.id });
    expect(await callerAs(ana).webhooks.mine()).toEqual([]);
    // The console's list stays the admins'.
    await expect(callerAs(ana).webhooks.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("agents: a user's bindings are theirs to pick, newest first, and nobody else's", async () => {
    const [ana, ben] = await Promise.all([createTestUser(), createTestUser()]);
    const [first, second] = [await createEndpoint(), await createEndpoint()];
    const older = await createBinding({ endpoint: first, userId: ana.id });
    const newer = await createBinding({ endpoint: second, userId: ana.id });
    const mine = (await callerAs(ana).runners.mine()).filter((a) => a.id === older || a.id === newer);
    expect(mine.map((a) => [a.id, a.runnerId, a.scope])).toEqual([
      [newer, second.runnerId, "user"],
      [older, first.runnerId, "user"],
    ]);
    const anaFirst = (await callerAs(ana).runners.mine())[0];
    expect(anaFirst).toMatchObject({ id: newer, default: true });
    const bens = (await callerAs(ben).runners.mine()).map((a) => a.id);
    expect(bens).not.toContain(older);
    expect(bens).not.toContain(newer);
  });
});
