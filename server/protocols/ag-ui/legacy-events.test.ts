import { EventType } from "@ag-ui/core";
import { HttpAgent as HttpAgent10 } from "@ag-ui/client";
import { EventSchemas as Schemas048, HttpAgent as HttpAgent048 } from "@ag-ui/client-0.0.48";
import { EventSchemas as Schemas059, HttpAgent as HttpAgent059 } from "@ag-ui/client-0.0.59";
import { isDeepStrictEqual } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RUN_BODY, RUN_ENDINGS, RUN_ID, records, THREAD_ID, UI_SCHEMA } from "@/test/ag-ui-events";
import { LEGACY_SSE_ENCODING, SSE_ENCODING } from "./encoding";
import type { AgUiEvent } from "./events";
import { legacyEventJson } from "./legacy-events";

// The clients themselves, as the AG-UI frontends that send no protocolVersion run them: their
// HttpAgent reads the stream (their @ag-ui/core schema on every event, then verifyEvents, then
// the messages they build), fed by a stubbed fetch.

type Agent = {
  runAgent(params: { runId: string }, subscriber: Record<string, (params: never) => void>): Promise<unknown>;
  messages: { id: string; role: string; content?: unknown; metadata?: unknown }[];
};
type AgentClass = new (config: { url: string; threadId: string; initialMessages: { id: string; role: "user"; content: string }[] }) => Agent;

const CLIENTS = [
  { name: "@ag-ui/client 0.0.59 (CopilotKit 1.75)", HttpAgent: HttpAgent059 as unknown as AgentClass, schemas: Schemas059 },
  { name: "@ag-ui/client 0.0.48 (@copilotkitnext 1.54)", HttpAgent: HttpAgent048 as unknown as AgentClass, schemas: Schemas048 },
] as const;

// 0.0.48's ESM build imports fast-json-patch so that applyPatch is missing: it warns on every
// STATE_DELTA and ACTIVITY_DELTA, whatever their content. Its own bug, nothing a server can change.
const KNOWN_WARNING = /applyPatch is not a function/;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

type Outcome = { error: string | null; finished: { outcome?: string } | null; runError: unknown; toolResults: unknown[]; messages: Agent["messages"]; warnings: string[] };

async function runThrough(HttpAgent: AgentClass, wire: string): Promise<Outcome> {
  // 0.0.48 has no fetch option: it calls the global one.
  vi.stubGlobal("fetch", async () => new Response(wire, { headers: { "content-type": LEGACY_SSE_ENCODING.contentType } }));
  const warnings: string[] = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(" ")));
  vi.spyOn(console, "error").mockImplementation(() => {});
  const agent = new HttpAgent({ url: "http://dispatch.test/api/v1/agent/runs", threadId: THREAD_ID, initialMessages: [{ id: "u1", role: "user", content: "看看这张图" }] });
  const seen: Outcome = { error: null, finished: null, runError: null, toolResults: [], messages: [], warnings };
  try {
    await agent.runAgent(
      { runId: RUN_ID },
      {
        onRunFinishedEvent: (params: { outcome?: string }) => void (seen.finished = params),
        onRunErrorEvent: (params: { event: unknown }) => void (seen.runError = params.event),
        onToolCallResultEvent: (params: { event: unknown }) => void seen.toolResults.push(params.event),
      },
    );
  } catch (err) {
    seen.error = err instanceof Error ? err.message : String(err);
  }
  seen.messages = agent.messages;
  return seen;
}

const wireOf = (events: AgUiEvent[], encoding = LEGACY_SSE_ENCODING) => records(events).map((rec) => encoding.frame(rec) as string).join("");

const started: AgUiEvent = { type: EventType.RUN_STARTED, threadId: THREAD_ID, runId: RUN_ID };
const finished: AgUiEvent = { type: EventType.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID };
const byType = (type: string, nth = 0) => RUN_BODY.filter((event) => event.type === type)[nth]!;
const toolCallWithParts = RUN_BODY.filter((event) => "toolCallId" in event && event.toolCallId === "c2");

// Each 1.0 form, alone in a run, as stored: which client rejects it (true) and which reads it.
const INCOMPATIBLE: { what: string; events: AgUiEvent[]; rejectedBy: [boolean, boolean] }[] = [
  { what: "RUN_STARTED.input without tools and context", events: [RUN_BODY[0]!, finished], rejectedBy: [true, true] },
  { what: "MESSAGES_SNAPSHOT with content parts", events: [started, byType("MESSAGES_SNAPSHOT"), finished], rejectedBy: [true, true] },
  { what: "TOOL_CALL_RESULT with content parts", events: [started, ...toolCallWithParts, finished], rejectedBy: [true, true] },
  { what: "RUN_FINISHED with a cancelled outcome", events: [started, RUN_ENDINGS.cancelled!], rejectedBy: [true, false] },
  { what: "RUN_FINISHED with pendingToolCallIds", events: [started, RUN_ENDINGS["success with pending tool calls"]!], rejectedBy: [true, false] },
];

describe.each(CLIENTS.map((client, index) => [client.name, client, index] as const))("%s", (_name, client, index) => {
  it.each(INCOMPATIBLE.map((c) => [c.what, c] as const))("takes the stored 1.0 form of %s only where expected, and its downgrade always", async (_what, c) => {
    const stored = await runThrough(client.HttpAgent, wireOf(c.events, SSE_ENCODING));
    expect(stored.error !== null).toBe(c.rejectedBy[index]);
    const downgraded = await runThrough(client.HttpAgent, wireOf(c.events));
    expect(downgraded.error).toBeNull();
  });

  it.each(Object.keys(RUN_ENDINGS))("reads a whole downgraded run ending %s, tool card included", async (ending) => {
    const seen = await runThrough(client.HttpAgent, wireOf([...RUN_BODY, RUN_ENDINGS[ending]!]));
    expect(seen.error).toBeNull();
    expect(seen.warnings.filter((w) => !KNOWN_WARNING.test(w))).toEqual([]);
    if (ending === "error") expect(seen.runError).toMatchObject({ type: "RUN_ERROR", code: "RUNNER_ERROR" });
    else expect(seen.finished).not.toBeNull();
    expect(seen.messages.find((m) => m.id === "m1")).toMatchObject({ role: "assistant", content: "好的，我来创建。" });
    // Both hand the card to their subscribers with the event; 0.0.59 also keeps it on the tool message.
    expect(seen.toolResults).toContainEqual(expect.objectContaining({ toolCallId: "c1", metadata: { ui_schema: UI_SCHEMA } }));
    if (index === 0) expect(seen.messages.find((m) => m.id === "t1")?.metadata).toEqual({ ui_schema: UI_SCHEMA });
  });

  it("accepts every downgraded event on its own schema", () => {
    for (const rec of records([...RUN_BODY, ...Object.values(RUN_ENDINGS)])) {
      const parsed = client.schemas.safeParse(JSON.parse(legacyEventJson(rec.type, rec.json)));
      expect(parsed.success, `${rec.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });
});

describe("legacyEventJson", () => {
  it("leaves events no pre-1.0 client rejects as the same string, without reading them", () => {
    // Not JSON at all: the token events of a run are passed through unparsed.
    for (const type of ["TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "TEXT_MESSAGE_START", "CUSTOM"]) expect(legacyEventJson(type, "<not parsed>")).toBe("<not parsed>");
    const [result] = records([byType("TOOL_CALL_RESULT")]);
    expect(legacyEventJson(result!.type, result!.json)).toBe(result!.json);
  });

  it("sends an event whose downgrade changes nothing as its stored bytes, and one cut down with its fields in place", () => {
    // A client compares a live pre-1.0 stream with a replay in 1.0 by event id: equal as JSON must be equal as bytes.
    for (const rec of records([...RUN_BODY, ...Object.values(RUN_ENDINGS)])) {
      const legacy = legacyEventJson(rec.type, rec.json);
      const [down, stored] = [JSON.parse(legacy) as object, JSON.parse(rec.json) as object];
      if (isDeepStrictEqual(down, stored)) expect(legacy, rec.type).toBe(rec.json);
      expect(Object.keys(down), rec.type).toEqual(Object.keys(stored).filter((key) => key in down));
    }
  });

  it("keeps what AG-UI 1.0 expresses the legacy way, and drops only what those clients cannot read", () => {
    const down = (event: AgUiEvent) => JSON.parse(legacyEventJson(event.type, JSON.stringify(event))) as Record<string, unknown>;
    expect(down(RUN_BODY[0]!)).toEqual({ type: "RUN_STARTED", threadId: THREAD_ID, runId: RUN_ID, timestamp: 1_767_225_600_000 });
    expect(down(RUN_ENDINGS.cancelled!)).toEqual({ type: "RUN_FINISHED", threadId: THREAD_ID, runId: RUN_ID, timestamp: 1_767_225_600_000 });
    expect(down(RUN_ENDINGS["success with pending tool calls"]!).outcome).toEqual({ type: "success" });
    expect(down(RUN_ENDINGS.interrupt!)).toEqual(RUN_ENDINGS.interrupt);
    expect(down(byType("TOOL_CALL_RESULT", 1)).content).toBe('[{"type":"text","text":"found"},{"type":"image","source":{"type":"url","value":"https://files.example/b.png"}}]');
    const snapshot = down(byType("MESSAGES_SNAPSHOT")).messages as { content: unknown; metadata?: unknown }[];
    expect(snapshot[0]!.content).toEqual([
      { type: "text", text: "看看这张图" },
      { type: "binary", mimeType: "image/png", url: "https://files.example/a.png" },
      { type: "binary", mimeType: "application/pdf", data: "JVBERi0=" },
      { type: "binary", mimeType: "application/octet-stream", id: "file-1" },
    ]);
    expect(snapshot[2]).toMatchObject({ content: '[{"type":"text","text":"done"}]', metadata: { ui_schema: UI_SCHEMA } });
  });
});

// A 1.0 client sends no protocolVersion when its maxProtocolVersion is set below 1.0 (to talk
// to older agents); it reads the legacy forms too (binary parts with a deprecation warning).
describe("@ag-ui/client 1.0 with a pre-1.0 ceiling", () => {
  it.each(Object.keys(RUN_ENDINGS))("reads a whole downgraded run ending %s", async (ending) => {
    const seen = await runThrough(HttpAgent10 as unknown as AgentClass, wireOf([...RUN_BODY, RUN_ENDINGS[ending]!]));
    expect(seen.error).toBeNull();
    expect(seen.messages.find((m) => m.id === "t1")?.metadata).toEqual({ ui_schema: UI_SCHEMA });
  });
});
