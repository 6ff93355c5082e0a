// The unmodified @ag-ui/client 1.0.0 HttpAgent against POST /api/v1/ag-ui, for issue #40's
// predictive state updates and a reload mid-run (docs/ag-ui.md, "Predictive state"): the dojo's
// human-in-the-loop write_document streams its document into state while its arguments stream,
// announced by the CUSTOM PredictState event; the client's answer keeps it ({"accepted": true}) or
// rolls it back ({"accepted": false}, a STATE_SNAPSHOT). A page that joins a run mid-stream
// rebuilds the same state and reasoning as the page that stayed. Every stream passes verifyEvents.
import { HttpAgent, verifyEvents, type BaseEvent, type Tool } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestUser } from "@/test/helpers";
import { getJson } from "@/test/runs";
import { agUiUrl } from "./dispatch";

let apiKey: string;
beforeAll(async () => {
  ({ apiKey } = await createTestUser());
});

// The dojo's write_document (its predictive state updates page), a frontend tool the user confirms.
const WRITE_DOCUMENT: Tool = {
  name: "write_document",
  description: "Present the proposed changes to the user for review",
  parameters: { type: "object", properties: { document: { type: "string", description: "The full updated document in markdown format" } }, required: ["document"] },
};

const STORY =
  "Candy Beard was a pirate with a sweet tooth. Every morning she climbed the mast to look for islands made of sugar, " +
  "and every evening she told her crew that tomorrow would be the day. The crew did not believe her, but they loved the stories, " +
  "so they sailed on. One foggy morning the lookout smelled caramel, and the whole ship turned towards the smell as one.";
const writeDocument = (document: string) => `[[call:write_document ${JSON.stringify({ document })}]]`;

const agentOn = (threadId: string, initialState?: Record<string, unknown>) =>
  new HttpAgent({ url: agUiUrl(), headers: bearer(apiKey), threadId, ...(initialState ? { initialState } : {}) });

type Seen = { events: BaseEvent[]; documents: unknown[] };

/** One run through the client: its events (checked by verifyEvents) and each state.document it showed. */
async function run(agent: HttpAgent, opts: { text?: string; answer?: { toolCallId: string; content: string } } = {}): Promise<Seen> {
  if (opts.text !== undefined) agent.addMessage({ id: randomUUID(), role: "user", content: opts.text });
  if (opts.answer) agent.addMessage({ id: randomUUID(), role: "tool", ...opts.answer });
  const seen: Seen = { events: [], documents: [] };
  await agent.runAgent(
    { tools: [WRITE_DOCUMENT] },
    {
      onEvent: ({ event }) => void seen.events.push(structuredClone(event)),
      onStateChanged: ({ state }) => void seen.documents.push(state.document),
    },
  );
  await lastValueFrom(from(seen.events).pipe(verifyEvents(false), toArray()));
  return seen;
}

const ofType = <T>(events: BaseEvent[], type: string) => events.filter((e) => e.type === type) as unknown as T[];
const types = (events: BaseEvent[]) => events.map((e) => e.type as string);

async function keptState(threadId: string): Promise<unknown> {
  const res = await getJson(apiKey, `/api/v1/agent/history?threadId=${encodeURIComponent(threadId)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { state: unknown }).state;
}

/** The first run: the model writes the story with write_document, left open for the user to confirm. */
async function proposeStory(threadId: string): Promise<{ agent: HttpAgent; toolCallId: string }> {
  const agent = agentOn(threadId, { document: "Bruce was a good dog." });
  const { events, documents } = await run(agent, { text: `${writeDocument(STORY)} write a pirate story` });

  // PredictState in the convention clients know, before the call's start...
  const custom = ofType<{ name: string; value: unknown }>(events, "CUSTOM");
  expect(custom).toEqual([{ type: "CUSTOM", name: "PredictState", value: [{ state_key: "document", tool: "write_document", tool_argument: "document" }] }]);
  const at = types(events);
  expect(at.indexOf("CUSTOM")).toBe(at.indexOf("TOOL_CALL_START") - 1);
  // ...then the document grows in state while the arguments stream, and is whole at the end.
  const predictions = ofType<{ delta: { op: string; path: string; value: string }[] }>(events, "STATE_DELTA");
  expect(predictions.length).toBeGreaterThan(2);
  expect(at.indexOf("STATE_DELTA")).toBeLessThan(at.indexOf("TOOL_CALL_END"));
  const values = predictions.map((d) => d.delta[0]!.value);
  for (const [i, value] of values.entries()) {
    expect(predictions[i]!.delta).toEqual([{ op: "add", path: "/document", value }]);
    expect(STORY.startsWith(value)).toBe(true);
    if (i > 0) expect(value.length).toBeGreaterThan(values[i - 1]!.length);
  }
  expect(values.at(-1)).toBe(STORY);
  expect(documents[0]).toBe("Bruce was a good dog.");
  expect(documents.at(-1)).toBe(STORY);
  expect(agent.state).toEqual({ document: STORY });
  // The run ends with the call open for the user, and the thread keeps the prediction meanwhile.
  const call = ofType<{ toolCallId: string; toolCallName: string }>(events, "TOOL_CALL_START")[0]!;
  expect(call.toolCallName).toBe("write_document");
  expect(at).not.toContain("TOOL_CALL_RESULT");
  expect(await keptState(threadId)).toEqual({ document: STORY });
  return { agent, toolCallId: call.toolCallId };
}

describe("predictive state updates on POST /api/v1/ag-ui", () => {
  it("keeps the predicted document when the user accepts the change", async () => {
    const threadId = randomUUID();
    const { agent, toolCallId } = await proposeStory(threadId);
    const { events } = await run(agent, { answer: { toolCallId, content: JSON.stringify({ accepted: true }) } });
    expect(ofType<{ snapshot: unknown }>(events, "STATE_SNAPSHOT").map((e) => e.snapshot)).toEqual([{ document: STORY }]);
    expect(agent.state).toEqual({ document: STORY });
    expect(await keptState(threadId)).toEqual({ document: STORY });
  });

  it("rolls the document back with a STATE_SNAPSHOT when the user rejects the change", async () => {
    const threadId = randomUUID();
    const { agent, toolCallId } = await proposeStory(threadId);
    const { events, documents } = await run(agent, { answer: { toolCallId, content: JSON.stringify({ accepted: false }) } });
    // The run opens from the kept (predicted) state, then rolls it back before the model goes on.
    const snapshots = ofType<{ snapshot: unknown }>(events, "STATE_SNAPSHOT").map((e) => e.snapshot);
    expect(snapshots).toEqual([{ document: STORY }, { document: "Bruce was a good dog." }]);
    expect(types(events).lastIndexOf("STATE_SNAPSHOT")).toBeLessThan(types(events).indexOf("TEXT_MESSAGE_START"));
    expect(documents.at(-1)).toBe("Bruce was a good dog.");
    expect(agent.state).toEqual({ document: "Bruce was a good dog." });
    expect(await keptState(threadId)).toEqual({ document: "Bruce was a good dog." });
    // The model read the user's answer.
    expect(String(agent.messages.at(-1)?.content)).toContain('"accepted":false');
  });

  it("rolls back a document the state had not held before when the call fails", async () => {
    const threadId = randomUUID();
    const agent = agentOn(threadId, { title: "Draft" });
    const first = await run(agent, { text: `${writeDocument("A short note that the user will not take.")} note it` });
    expect(agent.state).toEqual({ title: "Draft", document: "A short note that the user will not take." });
    const toolCallId = ofType<{ toolCallId: string }>(first.events, "TOOL_CALL_START")[0]!.toolCallId;
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId, content: "", error: "the editor is closed" });
    await run(agent);
    expect(agent.state).toEqual({ title: "Draft" });
    expect(await keptState(threadId)).toEqual({ title: "Draft" });
  });

  it("predicts nothing for a run without state, and sends no PredictState", async () => {
    const agent = agentOn(randomUUID());
    const { events } = await run(agent, { text: `${writeDocument("No state here.")} write it` });
    expect(types(events)).not.toContain("CUSTOM");
    expect(types(events)).not.toContain("STATE_DELTA");
  });
});

describe("a page that joins a run mid-stream", () => {
  it("rebuilds the same state and reasoning as the page that stayed", async () => {
    const threadId = randomUUID();
    const stayed = agentOn(threadId, { plan: { steps: [] } });
    const step = (description: string) => ({ description, status: "pending" });
    const updateState = (operations: unknown[]) => `[[call:update_state ${JSON.stringify({ operations })}]]`;
    const script = [
      "[[delay:40]] [[think:First I list the steps then I do them one by one]]",
      updateState([{ op: "add", path: "/plan/steps", value: [step("Find a slot"), step("Book it")] }]),
      updateState([{ op: "replace", path: "/plan/steps/0/status", value: "done" }]),
      updateState([{ op: "replace", path: "/plan/steps/1/status", value: "done" }]),
      "book a slot for me",
    ].join(" ");
    stayed.addMessage({ id: randomUUID(), role: "user", content: script });

    const stayedEvents: BaseEvent[] = [];
    let joining: Promise<{ agent: HttpAgent; events: BaseEvent[] }> | null = null;
    const join = async () => {
      const agent = agentOn(threadId);
      const events: BaseEvent[] = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void events.push(structuredClone(event)) });
      return { agent, events };
    };
    await stayed.runAgent({}, {
      onEvent: ({ event }) => {
        stayedEvents.push(structuredClone(event));
        // Joins after the thought and the first step, while the run goes on.
        if (event.type === "STATE_DELTA" && !joining) joining = join();
      },
    });
    expect(joining).not.toBeNull();
    const joined = await joining!;
    await lastValueFrom(from(stayedEvents).pipe(verifyEvents(false), toArray()));
    await lastValueFrom(from(joined.events).pipe(verifyEvents(false), toArray()));

    const done = { plan: { steps: [{ description: "Find a slot", status: "done" }, { description: "Book it", status: "done" }] } };
    expect(stayed.state).toEqual(done);
    expect(joined.agent.state).toEqual(stayed.state);
    const reasoning = (agent: HttpAgent) => agent.messages.filter((m) => m.role === "reasoning").map((m) => ({ id: m.id, content: m.content }));
    expect(reasoning(stayed)).toHaveLength(1);
    expect(reasoning(joined.agent)).toEqual(reasoning(stayed));
    // The same state and reasoning events, in the same order: the joined page replayed the run's log.
    const sameKind = (events: BaseEvent[]) => events.filter((e) => e.type.startsWith("STATE_") || e.type.startsWith("REASONING_"));
    expect(sameKind(joined.events)).toEqual(sameKind(stayedEvents));
    expect(ofType(joined.events, "STATE_DELTA")).toHaveLength(3);
  });
});
