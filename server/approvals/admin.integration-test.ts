import { beforeAll, describe, expect, it, vi } from "vitest";
import { createTestUser } from "@/test/helpers";
import { waitForRunEnd } from "@/test/runs";
import { decide, interruptedRun, rememberTurn } from "./test-support";
import { callerAs, type Caller } from "@/test/trpc-callers";

// The callers get their principal directly; the session lookup (Auth.js, which needs Next's runtime) is never reached.
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

// The admin console's view of approvals: runs waiting for a person can be listed, and the run
// page says who decided what and when (an admin deciding for the owner is recorded as such).

let owner: Awaited<ReturnType<typeof createTestUser>>;
let admin: Awaited<ReturnType<typeof createTestUser>>;
let console_: Caller;
beforeAll(async () => {
  [owner, admin] = await Promise.all([createTestUser(), createTestUser({ role: "admin" })]);
  console_ = callerAs(admin);
});

describe("approvals in the admin console", () => {
  it("filters the runs waiting for approval, and shows who decided on the run page", async () => {
    const { body, interrupt } = await interruptedRun(owner.apiKey, rememberTurn(`adm_${Date.now()}`));
    const waiting = (await console_.adminRuns.list({ userEmail: owner.email, awaitingApproval: true })).items;
    expect(waiting.map((r) => r.runId)).toEqual([body.runId]);

    const decided = await decide(admin.apiKey, interrupt.id, { approve: false, reason: "checked with the owner" });
    expect(decided.status).toBe(202);
    const task = ((await decided.json()) as { task: { runId: string } }).task;
    expect((await waitForRunEnd(owner.apiKey, task.runId)).status).toBe("completed");
    expect((await console_.adminRuns.list({ userEmail: owner.email, awaitingApproval: true })).items).toEqual([]);

    const approvals = await console_.adminRuns.approvals({ id: waiting[0]!.id });
    expect(approvals).toEqual([
      expect.objectContaining({
        id: interrupt.id,
        action: "memory.update",
        status: "denied",
        askedByThisRun: true,
        decidedByEmail: admin.email,
        decidedAsAdmin: true,
        ownerEmail: owner.email,
        reason: "checked with the owner",
      }),
    ]);
  });

  it("lists every user's waiting requests for an admin, read-only, and refuses anyone else", async () => {
    const key = `wait_${Date.now()}`;
    const { body, interrupt } = await interruptedRun(owner.apiKey, rememberTurn(key, "grey"));
    const listed = await console_.adminRuns.waitingApprovals({ locale: "en" });
    const item = listed.find((i) => i.id === interrupt.id);
    expect(item).toEqual(
      expect.objectContaining({ threadId: body.threadId, ownerEmail: owner.email, question: expect.stringContaining("grey"), runId: expect.any(String), createdAt: expect.any(String) }),
    );
    expect(item!.question).not.toContain("memory.update");
    // The run link opens the run's page.
    expect((await console_.adminRuns.get({ id: item!.runId })).run.runId).toBe(body.runId);
    await expect(callerAs(owner).adminRuns.waitingApprovals({})).rejects.toThrow();

    expect((await decide(owner.apiKey, interrupt.id, { approve: false })).status).toBe(202);
    expect((await console_.adminRuns.waitingApprovals({})).map((i) => i.id)).not.toContain(interrupt.id);
  });
});
