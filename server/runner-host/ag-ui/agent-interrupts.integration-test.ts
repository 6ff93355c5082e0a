import { HttpAgent, verifyEvents, type BaseEvent, type Interrupt } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { getPool } from "@/server/db";
import { StreamObjectSchema, type StreamObject } from "@/server/protocols/agent-api/response";
import { extraServersForFile } from "@/test/extra-server";
import { baseUrl, bearer } from "@/test/helpers";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";
import { callerAs } from "@/test/trpc-callers";
import { waitFor } from "@/test/wait";
import { decide, history } from "../../approvals/test-support";
import { scriptedAgents, type Script as AgentScript } from "./test-fixtures";

// An AG-UI agent that ends its run with an interrupt outcome, scripted frame by frame behind the
// production server: its interrupts become durable approvals (inbox, /history cards, every door's
// own form), a decision made a day later (on another instance) starts the run that sends the
// agent resume[] in AG-UI 1.0's shape, and the agent goes on. Then the instance relaying a run
// is killed mid-stream: the run ends EXECUTOR_LOST on the other one, and the agent is not re-run.

vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

type AgentInput = { threadId: string; runId: string; messages: { role: string; content?: unknown }[]; resume?: unknown[] };
type Script = AgentScript<AgentInput>;

const { userWithAgent } = scriptedAgents<AgentInput>("hitl");
const extra = extraServersForFile(1);

const text = (id: string, words: string) => [
  { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: words },
  { type: "TEXT_MESSAGE_END", messageId: id },
];

/**
 * A human-in-the-loop agent: asked to send mail, it streams the call and interrupts for approval;
 * resumed, it answers the call and says what it did with the answer it was given.
 */
const mailer: Script = ({ threadId, runId, resume }) => {
  if (resume?.length) {
    const entry = resume[0] as { status: string; payload?: { approved?: boolean } };
    const sent = entry.status === "resolved" && entry.payload?.approved === true;
    return {
      frames: [
        { type: "RUN_STARTED", threadId, runId },
        { type: "TOOL_CALL_RESULT", messageId: `r-${runId}`, toolCallId: "call-mail", content: sent ? "sent" : "not sent" },
        ...text(`a-${runId}`, sent ? "Mail sent." : `Not sent (${entry.status}).`),
        { type: "RUN_FINISHED", threadId, runId },
      ],
    };
  }
  return {
    frames: [
      { type: "RUN_STARTED", threadId, runId },
      ...text(`m-${runId}`, "I will send it once you agree."),
      { type: "TOOL_CALL_START", toolCallId: "call-mail", toolCallName: "send_mail", parentMessageId: `m-${runId}` },
      { type: "TOOL_CALL_ARGS", toolCallId: "call-mail", delta: '{"to":"ana@example.com"}' },
      { type: "TOOL_CALL_END", toolCallId: "call-mail" },
      {
        type: "RUN_FINISHED",
        threadId,
        runId,
        outcome: {
          type: "interrupt",
          interrupts: [
            {
              id: "ask-mail",
              reason: "tool_approval",
              message: "Send the mail to ana@example.com?",
              toolCallId: "call-mail",
              responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
            },
          ],
        },
      },
    ],
  };
};

const verify = (events: BaseEvent[]) => lastValueFrom(from(events).pipe(verifyEvents(), toArray()));

/** Moves the request's clock: it was asked `hours` ago (its expiry moves with it). */
async function askedHoursAgo(approvalId: string, hours: number) {
  await getPool().query(
    `update approvals set created_at = created_at - make_interval(hours => $2), expires_at = expires_at - make_interval(hours => $2) where id = $1`,
    [approvalId, hours],
  );
}

async function runOnAgUiDoor(agent: HttpAgent, resume?: { interruptId: string; status: "resolved" | "cancelled"; payload?: unknown }[]) {
  const events: BaseEvent[] = [];
  let interrupts: Interrupt[] = [];
  await agent.runAgent(resume ? { resume } : {}, {
    onEvent: ({ event }) => void events.push(event),
    onRunFinishedEvent: (params) => {
      if (params.outcome === "interrupt") interrupts = params.interrupts;
    },
  });
  await verify(events);
  return { events, interrupts };
}

describe("an AG-UI agent's interrupt", () => {
  it("waits as a durable approval; answered a day later through resume[], the agent gets its own interrupt id and goes on", async () => {
    const { user, received } = await userWithAgent(mailer);
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId });
    agent.addMessage({ id: randomUUID(), role: "user", content: "mail ana" });
    const first = await runOnAgUiDoor(agent);
    expect(first.interrupts).toHaveLength(1);
    const interrupt = first.interrupts[0]!;
    expect(interrupt).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      reason: "tool_approval",
      message: "Send the mail to ana@example.com?",
      toolCallId: "call-mail",
      responseSchema: { required: ["approved"] },
      metadata: { ui_schema: { status: "pending" }, approval: { status: "pending", actions: ["approve", "deny"] } },
    });

    // Listed where a person finds it: the inbox, and the thread's card in /history.
    const inbox = await callerAs(user).approvalPolicy.inbox({});
    expect(inbox.items.find((i) => i.id === interrupt.id)).toMatchObject({ question: "Send the mail to ana@example.com?" });
    const card = (await history(user.apiKey, threadId)).messages.find((m) => m.approval?.id === interrupt.id);
    expect(card).toMatchObject({ role: "tool", approval: { status: "pending" }, uiSchema: { status: "pending" } });

    // A day later (23 hours; the request lives 24), the client answers with its own payload.
    await askedHoursAgo(interrupt.id, 23);
    const second = await runOnAgUiDoor(agent, [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true, note: "go" } }]);
    expect(received).toHaveLength(2);
    expect(received[1]!.resume).toEqual([{ interruptId: "ask-mail", status: "resolved", payload: { approved: true, note: "go" } }]);
    expect(received[0]!.resume).toBeUndefined();
    expect(second.interrupts).toEqual([]);
    expect(second.events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Mail sent." });
    const after = await history(user.apiKey, threadId);
    expect(after.messages.some((m) => m.approval?.id === interrupt.id)).toBe(false);
    expect(after.messages.at(-1)).toMatchObject({ role: "assistant", content: "Mail sent." });
  });

  it("denied on another instance (the seed door's companion endpoint): the agent hears approved: false with the reason", async () => {
    const { user, received } = await userWithAgent(mailer);
    const body = runInput({}, "mail ana");
    const asked = (await collectSse(await postRun(user.apiKey, body, { stream: true }))).map((f) => JSON.parse(f.data) as BaseEvent & Record<string, unknown>);
    await verify(asked);
    const outcome = asked.at(-1)!.outcome as { type: string; interrupts: Interrupt[] };
    expect(outcome.type).toBe("interrupt");
    const id = outcome.interrupts[0]!.id;
    await askedHoursAgo(id, 23);

    const told = await decide(user.apiKey, id, { approve: false, reason: "not today" }, { stream: true, base: extra[0]!.url });
    expect(told.status).toBe(200);
    const continued = (await collectSse(told)).map((f) => JSON.parse(f.data) as BaseEvent & Record<string, unknown>);
    await verify(continued);
    expect(received[1]!.resume).toEqual([{ interruptId: "ask-mail", status: "resolved", payload: { approved: false, reason: "not today" } }]);
    expect(continued.find((e) => e.type === "TEXT_MESSAGE_CONTENT")).toMatchObject({ delta: "Not sent (resolved)." });
    expect(continued.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    // Deciding it again the other way is refused: the first decision stands.
    expect((await decide(user.apiKey, id, { approve: true })).status).toBe(409);
  });

  it("expired unanswered: the thread's next message sends the agent a cancelled entry", async () => {
    const { user, received } = await userWithAgent(mailer);
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId });
    agent.addMessage({ id: randomUUID(), role: "user", content: "mail ana" });
    const { interrupts } = await runOnAgUiDoor(agent);
    await askedHoursAgo(interrupts[0]!.id, 25);
    expect((await decide(user.apiKey, interrupts[0]!.id, { approve: true })).status).toBe(409);
    // The client still holds the interrupt open: it cancels it, with a new message.
    agent.addMessage({ id: randomUUID(), role: "user", content: "never mind" });
    await runOnAgUiDoor(agent, [{ interruptId: interrupts[0]!.id, status: "cancelled" }]);
    expect(received[1]!.resume).toEqual([{ interruptId: "ask-mail", status: "cancelled" }]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Not sent (cancelled)." });
  });

  it("is an mcp_approval_request on the Agent API; mcp_approval_response resumes the agent", async () => {
    const { user, received } = await userWithAgent(mailer);
    const processOn = async (body: unknown) => {
      const res = await fetch(`${baseUrl()}/api/v1/agent/process`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      const objects = (await collectSse(res)).map((f) => JSON.parse(f.data) as StreamObject);
      for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
      return objects as (StreamObject & { object: string; status: string; session_id: string; output: { type: string; content: { data?: Record<string, unknown> }[] }[] })[];
    };
    const asked = await processOn({ input: [{ role: "user", type: "message", content: [{ type: "text", text: "mail ana" }] }] });
    const end = asked.at(-1)!;
    expect(end).toMatchObject({ object: "response", status: "incomplete" });
    const request = end.output.find((m) => m.type === "mcp_approval_request")!.content[0]!.data!;
    expect(request).toMatchObject({ name: "send_mail", call_id: "call-mail", reason: "Send the mail to ana@example.com?" });
    expect(JSON.parse(request.arguments as string)).toEqual({ to: "ana@example.com" });

    const done = await processOn({ session_id: asked[0]!.session_id, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }] });
    expect(done.at(-1)).toMatchObject({ object: "response", status: "completed" });
    expect(received[1]!.resume).toEqual([{ interruptId: "ask-mail", status: "resolved", payload: { approved: true } }]);
  });
});

describe("the instance relaying an AG-UI agent's run, killed mid-stream", () => {
  it("the run ends EXECUTOR_LOST on the other instance, and the agent is not run again", async () => {
    const { user, received } = await userWithAgent(({ threadId, runId }) => ({
      hold: true,
      frames: [{ type: "RUN_STARTED", threadId, runId }, { type: "TEXT_MESSAGE_START", messageId: `m-${runId}`, role: "assistant" }, { type: "TEXT_MESSAGE_CONTENT", messageId: `m-${runId}`, delta: "working" }],
    }));
    const body = runInput({}, "a long job");
    const res = await fetch(`${extra[0]!.url}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    for await (const frame of readSse(res)) if ((JSON.parse(frame.data) as { type: string }).type === "TEXT_MESSAGE_CONTENT") break;
    const doomed = extra[0]!.child;
    const exited = new Promise((resolve) => doomed.once("exit", resolve));
    doomed.kill("SIGKILL");
    await exited;

    const end = await waitForRunEnd(user.apiKey, body.runId, 60_000);
    expect(end).toMatchObject({ status: "failed", error: { code: "EXECUTOR_LOST" } });
    const log = (await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/events`, { headers: bearer(user.apiKey) }))).map((f) => JSON.parse(f.data) as BaseEvent);
    await verify(log);
    expect(log.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "EXECUTOR_LOST" });
    // The agent was asked once: the surviving instance closed the run rather than re-run its side effects.
    await waitFor(async () => (await getPool().query(`select 1 from runs where run_id = $1 and status = 'failed'`, [body.runId])).rowCount === 1);
    expect(received).toHaveLength(1);
  });
});

