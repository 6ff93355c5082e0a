import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { callHost, createBinding, createEndpoint, endRun, startRunSession, type TestEndpoint } from "@/server/runner-host/api/test-fixtures";
import { decideApproval } from "./decide";
import { createApprovalGate } from "./gate";
import { createTestUser } from "@/test/helpers";
import { fact } from "./test-support";

// External runners under the same policy: a runner's tools/call of a write through the host API
// gets a typed answer that approval is pending; once decided, the run that continues calls again
// with the same tool_call_id and the action runs, once, however often it asks. A binding may
// approve for automation.

let user: Awaited<ReturnType<typeof createTestUser>>;
let endpoint: TestEndpoint;
let bindingId: string;
beforeAll(async () => {
  user = await createTestUser();
  endpoint = await createEndpoint();
  bindingId = await createBinding({ endpoint, userId: user.id });
});

type CallAnswer = { output: { status: string; error: { code: string; approval?: { id: string; status: string } } | null }; ui_schema: { status: string } | null };

async function remember(runId: string, toolCallId: string, key: string): Promise<CallAnswer> {
  const answer = await callHost(endpoint.secret, "tools/call", {
    run_id: runId,
    tool_name: "project_cli",
    tool_call_id: toolCallId,
    parameters: { module: "memory", method: "update", input: { facts: [{ key, value: "from the runner" }] } },
  });
  expect(answer.body, answer.text).toMatchObject({ ok: true });
  return answer.body.data as CallAnswer;
}

describe("approvals for external runners", () => {
  it("answers a write with APPROVAL_PENDING, runs it once after the decision, and lets an auto-approving binding's runs write at once", async () => {
    const key = `r_${Date.now()}`;
    const first = await startRunSession({ userId: user.id, endpoint, bindingId, text: "remember something" });
    const asked = await remember(first.id, "call_runner_w1", key);
    expect(asked.output).toMatchObject({ status: "failure", error: { code: "APPROVAL_PENDING", approval: { status: "pending" } } });
    expect(asked.ui_schema).toMatchObject({ status: "pending" });
    // Asking again before the decision is the same request, still not run.
    const again = await remember(first.id, "call_runner_w1", key);
    expect(again.output.error!.approval!.id).toBe(asked.output.error!.approval!.id);
    expect(await fact(user.id, key)).toBeNull();

    // Decided (the decision itself is the one every door records; the fixture's runner cannot be
    // planned a continuation, so its next run is started here): the runner calls again with the same id.
    await endRun(first.id);
    await decideApproval({ approvalId: asked.output.error!.approval!.id, decider: { userId: user.id, isAdmin: false }, decision: { approve: true } });
    const next = await startRunSession({ userId: user.id, endpoint, bindingId, threadId: first.threadId, text: "go on" });
    const ran = await remember(next.id, "call_runner_w1", key);
    expect(ran.output).toMatchObject({ status: "success", error: null });
    expect(await fact(user.id, key)).toBe("from the runner");
    // The continuing run asking again (a retry) gets the same answer: the write is not done
    // again (the fact's updated_at would move) and no second approval is asked for.
    expect(await remember(next.id, "call_runner_w1", key)).toEqual(ran);
    const asks = await getPool().query(`select id from approvals where thread_id = $1 and tool_call_id = 'call_runner_w1'`, [first.threadId]);
    expect(asks.rows).toHaveLength(1);
    const { rows } = await getPool().query(`select status, resolved_run_id from approvals where id = $1`, [asked.output.error!.approval!.id]);
    expect(rows[0]).toEqual({ status: "approved", resolved_run_id: next.id });
    await endRun(next.id);

    // A binding set to approve for automation: its runs' writes go ahead.
    await getPool().query(`update agent_bindings set auto_approve = true where id = $1`, [bindingId]);
    const robot = await startRunSession({ userId: user.id, endpoint, bindingId, text: "remember more" });
    const auto = await remember(robot.id, "call_runner_w2", `${key}_auto`);
    expect(auto.output).toMatchObject({ status: "success" });
    expect(await fact(user.id, `${key}_auto`)).toBe("from the runner");
    await endRun(robot.id);
  });

  it("asks once for a call whose step runs again (the process executing it died)", async () => {
    const fresh = await createBinding({ endpoint, userId: user.id });
    const run = await startRunSession({ userId: user.id, endpoint, bindingId: fresh, text: "remember once" });
    const gateRun = { id: run.id, threadId: run.threadId, userId: user.id };
    const args = { module: "memory", method: "update", input: { key: `once_${Date.now()}`, value: "asked" } };
    const first = await createApprovalGate(gateRun).check({ toolCallId: "call_step", args });
    const repeated = await createApprovalGate(gateRun).check({ toolCallId: "call_step", args });
    expect(first).toMatchObject({ status: "pending" });
    expect(repeated!.id).toBe(first!.id);
    const { rows } = await getPool().query(`select id from approvals where run_id = $1`, [run.id]);
    expect(rows).toEqual([{ id: first!.id }]);
    await endRun(run.id);
  });
});
