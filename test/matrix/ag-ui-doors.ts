import { randomUUID } from "node:crypto";
import { HttpAgent, type Message } from "@ag-ui/client";
import { baseUrl } from "@/test/helpers";
import type { Cell } from "./axes";
import { agentPost, deliver, eventsOf, fetched, type AgUiEvent, type Post, type Reader, type RunRecord } from "./delivery";
import type { Participant } from "./participants";
import { ANSWER_CARRIER, WEATHER_ANSWER, type Turn } from "./turns";

// The three doors whose runs stream AG-UI events: the seed endpoint (POST /api/v1/agent/runs,
// one new user message a run), the web chat (the same endpoint with the browser's session and
// its HttpAgent, decisions answered 202 and followed, as components/chat does) and the AG-UI-
// native door (POST /api/v1/ag-ui with the official HttpAgent, resending the conversation).

export type Door = {
  start(turn: Turn): Promise<RunRecord>;
  /** Approves the interrupt the previous run ended with; the run that continues. */
  approve(previous: RunRecord): Promise<RunRecord>;
  /** Answers the client tool call of the previous run. */
  answerTool(previous: RunRecord, turn: Turn): Promise<RunRecord>;
  readonly threadId: string;
  /** How this door's client reads runs (the invariants replay with it). */
  reader: Reader;
};

const interruptOf = (run: RunRecord) => {
  const finished = eventsOf(run.frames).findLast((e) => e.type === "RUN_FINISHED");
  const outcome = finished?.outcome as { type: string; interrupts?: { id: string }[] } | undefined;
  if (outcome?.type !== "interrupt") throw new Error(`the run did not end waiting for approval: ${JSON.stringify(finished ?? eventsOf(run.frames).at(-1))}`);
  return outcome.interrupts![0]!.id;
};

export const toolCallOf = (run: RunRecord) => {
  const events = eventsOf(run.frames);
  const start = events.find((e) => e.type === "TOOL_CALL_START");
  if (!start) throw new Error("the run made no tool call");
  const id = start.toolCallId as string;
  const args = events.filter((e) => e.type === "TOOL_CALL_ARGS" && e.toolCallId === id).map((e) => e.delta).join("");
  return { id, name: start.toolCallName as string, args };
};

/**
 * The seed endpoint's binary block for an image, or AG-UI 1.0's image or document part (what
 * HttpAgent clients send). The seed door's binary block is image-only (its spec's validation
 * table): a document goes as AG-UI 1.0's document part there too.
 */
function userContent(turn: Turn, format: "binary" | "ag-ui-1") {
  const a = turn.attachment;
  if (!a) return turn.text;
  const binary = format === "binary" && a.kind === "image";
  const part = binary ? { type: "binary", mimeType: a.mimeType, url: a.url } : { type: a.kind, source: { type: "url", value: a.url, mimeType: a.mimeType } };
  return [{ type: "text", text: turn.text }, part];
}

function poster(path: string, auth: Record<string, string>, body: unknown): Post {
  return async (stream) =>
    fetched(
      await fetch(`${baseUrl()}${path}`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", accept: stream ? "text/event-stream" : "application/json" },
        body: JSON.stringify(body),
      }),
    );
}

const runBody = (threadId: string, messages: unknown[], tools: unknown[], extra: Record<string, unknown> = {}) => ({
  threadId,
  runId: `run-${randomUUID()}`,
  state: {},
  messages,
  tools,
  context: [],
  forwardedProps: {},
  ...extra,
});

export function seedDoor(p: Participant, delivery: Cell["delivery"]): Door {
  const threadId = randomUUID();
  const reader: Reader = { auth: p.auth, version: "0.0" };
  const run = (messages: unknown[], tools: unknown[]) => deliver(poster("/api/v1/agent/runs", p.auth, runBody(threadId, messages, tools)), delivery, reader);
  return {
    threadId,
    reader,
    start: (turn) => run([{ id: `u-${randomUUID()}`, role: "user", content: userContent(turn, "binary") }], turn.tools),
    approve: (previous) => deliver(poster(`/api/v1/agent/interrupts/${interruptOf(previous)}`, p.auth, { approve: true }), delivery, reader),
    answerTool: (previous, turn) =>
      // The seed endpoint takes exactly one user message a run: the answer comes with the next one.
      run(
        [
          { id: `u-${randomUUID()}`, role: "user", content: ANSWER_CARRIER },
          { id: `t-${randomUUID()}`, role: "tool", toolCallId: toolCallOf(previous).id, content: WEATHER_ANSWER },
        ],
        turn.tools,
      ),
  };
}

export function webDoor(p: Participant, delivery: Cell["delivery"]): Door {
  const threadId = randomUUID();
  // What components/chat/run-client.ts sends with every run.
  const forwardedProps = { timeZone: "Europe/Paris", locale: "en" };
  const reader: Reader = { auth: p.auth, version: "1.0" };
  return {
    threadId,
    reader,
    start: (turn) => {
      const message = { id: `u-${randomUUID()}`, role: "user", content: userContent(turn, "ag-ui-1") } as Message;
      const runId = `run-${randomUUID()}`;
      const post: Post = (stream) => {
        if (!stream) return poster("/api/v1/agent/runs", p.auth, { ...runBody(threadId, [message], []), runId, protocolVersion: "1.0", forwardedProps })(false);
        const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/agent/runs`, headers: p.auth, threadId });
        agent.setMessages([message]);
        return agentPost(agent, { runId, forwardedProps });
      };
      return deliver(post, delivery, reader);
    },
    // The approval card posts the decision as JSON and the chat follows the run it starts.
    approve: (previous) => deliver(poster(`/api/v1/agent/interrupts/${interruptOf(previous)}`, p.auth, { approve: true }), delivery, reader, false),
    answerTool: () => Promise.reject(new Error("the web chat declares no client tools")),
  };
}

/** The assistant message a run's events describe, as an AG-UI client holds it (text and calls). */
function assistantOf(events: AgUiEvent[]): Message[] {
  const calls = events.filter((e) => e.type === "TOOL_CALL_START");
  const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
  if (calls.length === 0 && !text) return [];
  const toolCalls = calls.map((c) => ({
    id: c.toolCallId as string,
    type: "function" as const,
    function: { name: c.toolCallName as string, arguments: events.filter((e) => e.type === "TOOL_CALL_ARGS" && e.toolCallId === c.toolCallId).map((e) => e.delta).join("") },
  }));
  return [{ id: `a-${randomUUID()}`, role: "assistant", content: text, ...(toolCalls.length ? { toolCalls } : {}) } as Message];
}

export function agUiDoor(p: Participant, delivery: Cell["delivery"]): Door {
  const threadId = randomUUID();
  const conversation: Message[] = [];
  const reader: Reader = { auth: p.auth, version: "1.0" };
  const run = async (tools: Turn["tools"], extra: { resume?: unknown[] } = {}) => {
    const runId = `run-${randomUUID()}`;
    const post: Post = (stream) => {
      if (!stream) return poster("/api/v1/ag-ui", p.auth, { ...runBody(threadId, conversation, tools, extra), runId, protocolVersion: "1.0" })(false);
      const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: p.auth, threadId });
      agent.setMessages(conversation);
      return agentPost(agent, { runId, tools, ...extra } as Parameters<HttpAgent["runAgent"]>[0] & object);
    };
    const record = await deliver(post, delivery, reader);
    conversation.push(...assistantOf(eventsOf(record.frames)));
    return record;
  };
  return {
    threadId,
    reader,
    start: (turn) => {
      conversation.push({ id: `u-${randomUUID()}`, role: "user", content: userContent(turn, "ag-ui-1") } as Message);
      return run(turn.tools);
    },
    approve: (previous) => run([], { resume: [{ interruptId: interruptOf(previous), status: "resolved", payload: { approved: true } }] }),
    answerTool: (previous, turn) => {
      conversation.push({ id: `t-${randomUUID()}`, role: "tool", toolCallId: toolCallOf(previous).id, content: WEATHER_ANSWER } as Message);
      return run(turn.tools);
    },
  };
}
