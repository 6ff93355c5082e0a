import { HttpAgent, verifyEvents, type BaseEvent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { baseUrl, bearer } from "@/test/helpers";
import { pngBytes } from "@/test/images";
import { getJson, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { scriptedAgents, type Script as AgentScript } from "./test-fixtures";

// AG-UI agents scripted frame by frame (a framework's agent is in test/framework-agents), behind the
// production server: what Dispatch keeps of an agent's state, and how each broken stream ends.

type AgentInput = { threadId: string; runId: string; state: unknown };
type Script = AgentScript<AgentInput>;

const { userWithAgent } = scriptedAgents<AgentInput>("scripted");

async function run(apiKey: string, threadId: string, text: string, state?: Record<string, unknown>) {
  const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: bearer(apiKey), threadId, initialState: state });
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  const events: BaseEvent[] = [];
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) }).catch(() => undefined);
  await lastValueFrom(from(events).pipe(verifyEvents(), toArray()));
  return { events, agent };
}

const answer = (id: string) => [
  { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: "ok" },
  { type: "TEXT_MESSAGE_END", messageId: id },
];

describe("an AG-UI agent's state", () => {
  it("is kept as the thread's state, and the next run is sent it", async () => {
    const received: unknown[] = [];
    const { user } = await userWithAgent(({ threadId, runId, state }) => {
      received.push(state);
      return {
        frames: [
          { type: "RUN_STARTED", threadId, runId },
          { type: "STATE_SNAPSHOT", snapshot: { count: 1, items: ["a"] } },
          { type: "STATE_DELTA", delta: [{ op: "add", path: "/items/-", value: "b" }, { op: "replace", path: "/count", value: 2 }] },
          ...answer(`a-${runId}`),
          { type: "RUN_FINISHED", threadId, runId },
        ],
      };
    });
    const threadId = randomUUID();
    const first = await run(user.apiKey, threadId, "one", { count: 0 });
    expect(first.agent.state).toEqual({ count: 2, items: ["a", "b"] });
    const history = (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json()) as { state?: unknown };
    expect(history.state).toEqual({ count: 2, items: ["a", "b"] });
    // A fresh client that sends no state: the agent gets the state the thread keeps.
    await run(user.apiKey, threadId, "two");
    expect(received).toEqual([{ count: 0 }, { count: 2, items: ["a", "b"] }]);
  });
});

describe("an AG-UI agent's shorthand", () => {
  it("takes TEXT_MESSAGE_CHUNK events as the message they stand for", async () => {
    const { user } = await userWithAgent(({ threadId, runId }) => ({
      frames: [
        { type: "RUN_STARTED", threadId, runId },
        { type: "TEXT_MESSAGE_CHUNK", messageId: `c-${runId}`, role: "assistant", delta: "in " },
        { type: "TEXT_MESSAGE_CHUNK", messageId: `c-${runId}`, delta: "chunks" },
        { type: "RUN_FINISHED", threadId, runId },
      ],
    }));
    const threadId = randomUUID();
    const { events, agent } = await run(user.apiKey, threadId, "hello");
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "in chunks" });
    const history = (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json()) as { messages: { role: string; content: string }[] };
    expect(history.messages.map((m) => [m.role, m.content])).toEqual([["user", "hello"], ["assistant", "in chunks"]]);
  });
});

describe("an AG-UI agent's input", () => {
  it("has the user's image as an image part with a fresh signed URL", async () => {
    let sent: { role: string; content?: unknown }[] = [];
    const { user } = await userWithAgent((input) => {
      sent = (input as unknown as { messages: typeof sent }).messages;
      return { frames: [{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }, ...answer(`a-${input.runId}`), { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId }] };
    });
    const image = pngBytes(42);
    const form = new FormData();
    form.set("file", new Blob([Buffer.from(image)], { type: "image/png" }), "photo.png");
    const uploaded = (await (await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(user.apiKey), body: form })).json()) as { url: string };
    const body = runInput({ messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "what is this?" }, { type: "binary", mimeType: "image/png", url: uploaded.url }] }] });
    await collectSse(await postRun(user.apiKey, body, { stream: true }));
    expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("completed");
    const parts = sent[0]!.content as { type: string; text?: string; source?: { type: string; value: string; mimeType: string } }[];
    expect(parts).toMatchObject([{ type: "text", text: "what is this?" }, { type: "image", source: { type: "url", mimeType: "image/png" } }]);
    const fetched = await fetch(parts[1]!.source!.value);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(Buffer.from(image));
  });
});

describe("a broken AG-UI stream ends the run with a clear RUN_ERROR", () => {
  const cases: [string, Script, string, RegExp][] = [
    ["a malformed event", ({ threadId, runId }) => ({ frames: [{ type: "RUN_STARTED", threadId, runId }, { type: "TEXT_MESSAGE_START" }] }), "agent.malformed_event", /not valid AG-UI/],
    ["an event out of sequence", ({ threadId, runId }) => ({ frames: [{ type: "RUN_STARTED", threadId, runId }, { type: "TEXT_MESSAGE_CONTENT", messageId: "x", delta: "hi" }] }), "agent.invalid_sequence", /broke the AG-UI event rules/],
    ["a stream that ends without RUN_FINISHED", ({ threadId, runId }) => ({ frames: [{ type: "RUN_STARTED", threadId, runId }, ...answer("m")] }), "agent.incomplete", /without RUN_FINISHED or RUN_ERROR/],
    ["a frame that is not JSON", () => ({ frames: ["data: {not json\n\n"] }), "agent.malformed_stream", /could not be read/],
    ["an answer that is not an event stream", () => ({ contentType: "application/json", frames: ["{}"] }), "agent.bad_response", /not an AG-UI event stream/],
    ["the agent's own RUN_ERROR", ({ threadId, runId }) => ({ frames: [{ type: "RUN_STARTED", threadId, runId }, { type: "RUN_ERROR", code: "quota", message: "out of credit" }] }), "agent.run_error", /\(quota\): out of credit/],
  ];
  it.each(cases)("%s", async (_what, script, code, message) => {
    const { user } = await userWithAgent(script);
    const { events } = await run(user.apiKey, randomUUID(), "hello");
    const last = events.at(-1) as unknown as { type: string; code: string; message: string };
    expect(last).toMatchObject({ type: "RUN_ERROR", code });
    expect(last.message).toMatch(message);
    const runId = (events[0] as unknown as { runId: string }).runId;
    expect(await waitForRunEnd(user.apiKey, runId)).toMatchObject({ status: "failed", error: { code } });
  });
});
