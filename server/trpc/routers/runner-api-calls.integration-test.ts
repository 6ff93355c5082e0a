import { TRPCError } from "@trpc/server";
import { describe, expect, it, vi } from "vitest";
import { createBinding, createEndpoint, endRun, startRunSession } from "@/server/runner-host/api/test-fixtures";
import { apiCallAudit } from "@/server/runner-host/api/audit";
import { createTestUser } from "@/test/helpers";
import { callerAs } from "@/test/trpc-callers";

// The callers get their principal directly; the session lookup (Auth.js) is never reached.
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

describe("runnerApiCalls.list", () => {
  it("shows admins a run's host API calls in order, and nobody else", async () => {
    const admin = await createTestUser({ role: "admin" });
    const member = await createTestUser();
    const endpoint = await createEndpoint();
    const bindingId = await createBinding({ endpoint, userId: member.id });
    const run = await startRunSession({ userId: member.id, endpoint, bindingId });
    const base = { runId: run.id, runRef: run.id, runnerId: endpoint.runnerId, latencyMs: 3 };
    await apiCallAudit().record({ ...base, action: "state/set", resource: "k", scope: "conversation", result: "ok" });
    await apiCallAudit().record({ ...base, action: "tools/call", resource: "shell", scope: null, result: "unauthorized" });
    await endRun(run.id);

    const asAdmin = callerAs(admin);
    const { calls, truncated } = await asAdmin.runnerApiCalls.list({ runId: run.id });
    expect(truncated).toBe(false);
    expect(calls.map((c) => [c.action, c.resource, c.scope, c.result])).toEqual([
      ["state/set", "k", "conversation", "ok"],
      ["tools/call", "shell", null, "unauthorized"],
    ]);
    expect(calls[0]).toMatchObject({ runnerId: endpoint.runnerId, latencyMs: 3 });
    expect((await asAdmin.runnerApiCalls.list({ runId: run.id, limit: 1 })).truncated).toBe(true);

    const asMember = callerAs(member);
    await expect(asMember.runnerApiCalls.list({ runId: run.id })).rejects.toThrow(TRPCError);
  });
});
