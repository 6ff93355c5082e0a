import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { createTestUser } from "@/test/helpers";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { runProjectCli } from "@/server/tools/project-cli/tool";
import { getJson, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { decide, events, fact, history, interruptedRun, ofType, rememberTurn, showTurn } from "./test-support";

// Approvals over real HTTP on the seed door (POST /api/v1/agent/runs) and its companion
// (POST /api/v1/agent/interrupts/{id}), against the production server, the fake model and
// PostgreSQL: a write waits as a row, and a decision, on any instance, continues the work once.

let owner: Awaited<ReturnType<typeof createTestUser>>;
let stranger: Awaited<ReturnType<typeof createTestUser>>;
let admin: Awaited<ReturnType<typeof createTestUser>>;
let extra: ExtraServer | null = null;

beforeAll(async () => {
  [owner, stranger, admin] = await Promise.all([createTestUser(), createTestUser(), createTestUser({ role: "admin" })]);
});

afterAll(() => {
  extra?.child.kill("SIGKILL");
});

const key = () => `k_${randomUUID().replaceAll("-", "").slice(0, 10)}`;

describe("approvals on the seed endpoint and its companion", () => {
  it("a write waits as an interrupt; the owner approves it once, the model goes on; strangers and second thoughts are refused", async () => {
    const k = key();
    const { list, interrupt, threadId } = await interruptedRun(owner.apiKey, rememberTurn(k));
    // The call streamed as usual, and was not run: no result, nothing written.
    const call = ofType(list, "TOOL_CALL_START")[0]!;
    expect(ofType(list, "TOOL_CALL_END")).toHaveLength(1);
    expect(ofType(list, "TOOL_CALL_RESULT")).toHaveLength(0);
    expect(interrupt).toMatchObject({ reason: "tool_approval", toolCallId: call.toolCallId, metadata: { ui_schema: { status: "pending" } } });
    // The question a person answers, never the action's code name.
    expect(interrupt.message).toBe(`Remember your ${k.replaceAll("_", " ")}: “yes”?`);
    expect(interrupt.responseSchema).toMatchObject({ type: "object", required: ["approved"] });
    expect(Date.parse(interrupt.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(await fact(owner.id, k)).toBeNull();

    // Back after a reload: /history has the pending card and what can be done with it.
    const pending = (await history(owner.apiKey, threadId)).messages.find((m) => m.approval);
    expect(pending).toMatchObject({ role: "tool", uiSchema: { status: "pending" }, approval: { id: interrupt.id, status: "pending", actions: ["approve", "edit", "deny"] } });
    // Its words follow the reader's language (English unless asked), and its expiry is an instant
    // the renderer formats in the viewer's zone, not text with a raw timestamp.
    const expiry = { type: "datetime", value: pending!.approval!.expiresAt, format: "datetime" };
    expect(JSON.stringify(pending!.uiSchema)).toContain("Waiting for your approval");
    expect(JSON.stringify(pending!.uiSchema)).toContain(JSON.stringify({ ...expiry, label: "Expires" }).slice(1, -1));
    const zh = (await history(owner.apiKey, threadId, "zh-CN")).messages.find((m) => m.approval)!;
    expect(zh.uiSchema).toMatchObject({ locale: "zh-CN", status: "pending" });
    expect(JSON.stringify(zh.uiSchema)).toContain("等待你的批准");
    expect(JSON.stringify(zh.uiSchema)).toContain(JSON.stringify({ ...expiry, label: "到期时间" }).slice(1, -1));
    const badLocale = await getJson(owner.apiKey, `/api/v1/agent/history?threadId=${threadId}&locale=${encodeURIComponent("not a tag!")}`);
    expect(badLocale.status).toBe(400);
    expect(await badLocale.text()).toContain("locale must be a language tag");

    // Someone else's request does not exist for them.
    const refused = await decide(stranger.apiKey, interrupt.id, { approve: true });
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain(owner.id);

    // Approved: the continuation streams the call's result and card, then the model's answer.
    const continued = await events(await decide(owner.apiKey, interrupt.id, { approve: true }, { stream: true }));
    expect(continued.map((e) => e.type)).toEqual(expect.arrayContaining(["RUN_STARTED", "TOOL_CALL_RESULT", "TEXT_MESSAGE_START", "RUN_FINISHED"]));
    const result = ofType(continued, "TOOL_CALL_RESULT")[0]!;
    expect(result.toolCallId).toBe(call.toolCallId);
    expect((result.metadata as { ui_schema: { status: string } }).ui_schema.status).toBe("success");
    expect(ofType(continued, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toContain("Tool said:");
    expect((ofType(continued, "RUN_FINISHED")[0]!.outcome as { type: string }).type).toBe("success");
    expect(await fact(owner.id, k)).toBe("yes");
    // It ran as the call of the run that asked, so whichever run executes it again (the
    // continuation's step repeated elsewhere) gets the answer of that time, not a second write.
    const asked = await getPool().query<{ runId: string }>(`select run_id as "runId" from approvals where id = $1`, [interrupt.id]);
    const repeated = await runProjectCli({
      userId: owner.id,
      runId: randomUUID(),
      callRunId: asked.rows[0]!.runId,
      toolCallId: call.toolCallId as string,
      args: { module: "memory", method: "update", input: { facts: [{ key: k, value: "yes" }] } },
    });
    expect(repeated.toolResponseText).toBe(result.content);

    // Deciding again is the same answer (the same task, nothing run twice); changing one's mind is a 409.
    const again = await decide(owner.apiKey, interrupt.id, { approve: true });
    expect(again.status).toBe(202);
    const first = (await again.json()) as { approval: { status: string }; task: { runId: string } };
    expect(first).toMatchObject({ approval: { status: "approved" }, task: { runId: expect.stringMatching(/^resume-/) } });
    const flip = await decide(owner.apiKey, interrupt.id, { approve: false });
    expect(flip.status).toBe(409);
    expect(((await flip.json()) as { error: { message: string } }).error.message).toMatch(/already approved/);
    const { rows } = await getPool().query(`select count(*)::int as n from messages m join threads t on t.id = m.thread_id where t.id = $1 and m.role = 'tool'`, [threadId]);
    expect(rows[0].n).toBe(1);
    // The pending card made way for the result.
    const after = (await history(owner.apiKey, threadId)).messages.filter((m) => m.role === "tool");
    expect(after).toHaveLength(1);
    expect(after[0]!.approval).toBeUndefined();
  });

  it("denied with a reason, the model is told why; edits are checked by the action's schema and run as changed; an admin decides on the owner's behalf", async () => {
    // Asked in Chinese: the interrupt's card is, and so is the card of the continuation that reports the refusal.
    const denied = await interruptedRun(owner.apiKey, rememberTurn(key()), { forwardedProps: { locale: "zh-CN" } });
    expect(JSON.stringify(denied.interrupt.metadata)).toContain("等待你的批准");
    const told = await events(await decide(owner.apiKey, denied.interrupt.id, { approve: false, reason: "not today" }, { stream: true }));
    expect(JSON.stringify(ofType(told, "TOOL_CALL_RESULT")[0]!.metadata)).toContain("原因：not today");
    const text = ofType(told, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(text).toContain("NOT_APPROVED");
    expect(text).toContain("not today");
    expect((ofType(told, "TOOL_CALL_RESULT")[0]!.metadata as { ui_schema: { status: string } }).ui_schema.status).toBe("warning");

    const k = key();
    const edited = await interruptedRun(owner.apiKey, rememberTurn(k, "draft"));
    const invalid = await decide(owner.apiKey, edited.interrupt.id, { approve: true, input: { facts: [{ key: "Not A Key", value: "x" }] } });
    expect(invalid.status).toBe(400);
    const error = ((await invalid.json()) as { error: { message: string; details: { field: string } } }).error;
    expect(error.details.field).toBe("input.facts.0.key");
    expect(error.message).toContain("snake_case");
    // Still pending after a refused edit; the admin approves the corrected input for the owner.
    const fixed = await decide(admin.apiKey, edited.interrupt.id, { approve: true, input: { facts: [{ key: k, value: "final" }] } });
    expect(fixed.status).toBe(202);
    const task = ((await fixed.json()) as { task: { runId: string } }).task;
    expect((await waitForRunEnd(owner.apiKey, task.runId)).status).toBe("completed");
    expect(await fact(owner.id, k)).toBe("final");
    const { rows } = await getPool().query(`select decided_by, decided_as_admin, edited_input from approvals where id = $1`, [edited.interrupt.id]);
    expect(rows[0]).toMatchObject({ decided_by: admin.id, decided_as_admin: true, edited_input: { facts: [{ key: k, value: "final" }] } });
  });

  it("an expired request is not run and the model hears of it next turn; a new message supersedes a pending one", async () => {
    const k = key();
    const old = await interruptedRun(owner.apiKey, rememberTurn(k));
    await getPool().query(`update approvals set expires_at = now() - interval '1 second' where id = $1`, [old.interrupt.id]);
    expect((await history(owner.apiKey, old.threadId)).messages.find((m) => m.approval)?.approval).toMatchObject({ status: "expired", actions: [] });
    const late = await decide(owner.apiKey, old.interrupt.id, { approve: true });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { message: string } }).error.message).toMatch(/expired at .*was not done/);
    const next = await events(await postRun(owner.apiKey, runInput({ threadId: old.threadId }, showTurn("so?")), { stream: true }));
    expect(ofType(next, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toContain("APPROVAL_EXPIRED");
    expect(await fact(owner.id, k)).toBeNull();

    const waiting = await interruptedRun(owner.apiKey, rememberTurn(key()));
    const moved = await events(await postRun(owner.apiKey, runInput({ threadId: waiting.threadId }, showTurn("never mind")), { stream: true }));
    expect(ofType(moved, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toContain("The user sent a new message instead of approving memory.update");
    const stale = await decide(owner.apiKey, waiting.interrupt.id, { approve: true });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { message: string } }).error.message).toMatch(/superseded/);
  });

  it("survives the instance that asked going away, and two instances racing to approve run the action once", async () => {
    extra = await startExtraServer();
    const k = key();
    const body = runInput({}, rememberTurn(k, "raced"));
    const asked = await events(
      await fetch(`${extra.url}/api/v1/agent/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(body),
      }),
    );
    const interrupt = (ofType(asked, "RUN_FINISHED")[0]!.outcome as { interrupts: { id: string }[] }).interrupts[0]!;
    // The instance that asked is gone: the request is a row, and other instances answer it.
    extra.child.kill("SIGKILL");
    extra = await startExtraServer();
    const answers = await Promise.all([decide(owner.apiKey, interrupt.id, { approve: true }), decide(owner.apiKey, interrupt.id, { approve: true }, { base: extra.url })]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    const tasks = await Promise.all(answers.map(async (a) => ((await a.json()) as { task: { taskId: string; runId: string } }).task));
    expect(tasks[1]!.taskId).toBe(tasks[0]!.taskId);
    expect((await waitForRunEnd(owner.apiKey, tasks[0]!.runId)).status).toBe("completed");
    expect(await fact(owner.id, k)).toBe("raced");
    const { rows } = await getPool().query(`select count(*)::int as n from messages where thread_id = $1 and role = 'tool'`, [body.threadId]);
    expect(rows[0].n).toBe(1);

    // Approve and deny racing: one wins, the other is told it lost.
    const contested = await interruptedRun(owner.apiKey, rememberTurn(key()));
    const verdicts = await Promise.all([decide(owner.apiKey, contested.interrupt.id, { approve: true }), decide(owner.apiKey, contested.interrupt.id, { approve: false }, { base: extra.url })]);
    expect(verdicts.map((v) => v.status).sort()).toEqual([202, 409]);
  });

  it("asks nothing when the user's policy is never, or the API key approves for automation", async () => {
    const k = key();
    await getPool().query(`update users set approval_policy = 'never' where id = $1`, [stranger.id]);
    const quiet = await events(await postRun(stranger.apiKey, runInput({}, rememberTurn(k)), { stream: true }));
    expect((ofType(quiet, "RUN_FINISHED")[0]!.outcome as { type: string }).type).toBe("success");
    expect(await fact(stranger.id, k)).toBe("yes");

    const robot = await createTestUser();
    await getPool().query(`update api_keys set auto_approve = true where user_id = $1`, [robot.id]);
    const auto = await events(await postRun(robot.apiKey, runInput({}, rememberTurn(k)), { stream: true }));
    expect(ofType(auto, "TOOL_CALL_RESULT")).toHaveLength(1);
    expect(await fact(robot.id, k)).toBe("yes");
  });
});
