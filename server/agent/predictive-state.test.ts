import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import { AgUiEventTranslator } from "./event-translator";
import type { AgentStreamPart } from "./model-loop";
import { rollBackDeniedPredictions, runPredictions, StatePredictor } from "./predictive-state";
import { SharedState } from "./state-tool";

const WRITE_DOCUMENT = { name: "write_document", description: "Present a document", parameters: { type: "object" } };
const input = (over: Partial<RunAgentInput> = {}) =>
  ({ threadId: "t", runId: "r", messages: [], tools: [WRITE_DOCUMENT], context: [], ...over }) as unknown as RunAgentInput;

function streamCall(state: Record<string, unknown>, args: string, opts: { chunk?: number; fail?: boolean } = {}) {
  const events: AgUiEvent[] = [];
  const emit = (e: AgUiEvent) => void events.push(e);
  const shared = new SharedState(state, emit);
  const predictor = StatePredictor.open(runPredictions(input()), shared, emit);
  const translator = new AgUiEventTranslator(emit, new Set(["project_cli"]), { newId: () => "id", predictor });
  const feed = (part: unknown) => translator.accept(part as AgentStreamPart);
  feed({ type: "start-step" });
  feed({ type: "tool-input-start", id: "c1", toolName: "write_document" });
  const size = opts.chunk ?? 16;
  for (let i = 0; i < args.length; i += size) feed({ type: "tool-input-delta", id: "c1", delta: args.slice(i, i + size) });
  feed({ type: "tool-input-end", id: "c1" });
  if (opts.fail) feed({ type: "tool-error", toolCallId: "c1", toolName: "write_document", input: args, error: new Error("bad") });
  else feed({ type: "tool-call", toolCallId: "c1", toolName: "write_document", input: JSON.parse(args) });
  return { events, shared };
}

describe("predictive state", () => {
  it("predicts the dojo's write_document, or what forwardedProps.predictState names, for the client's tools only", () => {
    expect(runPredictions(input())).toEqual([{ state_key: "document", tool: "write_document", tool_argument: "document" }]);
    expect(runPredictions(input({ tools: [] }))).toEqual([]);
    const asked = [{ state_key: "recipe", tool: "write_document" }, { state_key: "x", tool: "project_cli" }, { state_key: "apiKey", tool: "write_document" }];
    expect(runPredictions(input({ forwardedProps: { predictState: asked } }))).toEqual([{ state_key: "recipe", tool: "write_document" }]);
  });

  it("announces PredictState before the call and streams the growing argument into state", () => {
    const document = "word ".repeat(60).trim();
    const { events, shared } = streamCall({ document: "old" }, JSON.stringify({ document }));
    expect(events[0]).toEqual({ type: EventType.CUSTOM, name: "PredictState", value: [{ state_key: "document", tool: "write_document", tool_argument: "document" }] });
    expect(events[1]!.type).toBe(EventType.TOOL_CALL_START);
    const values = events.filter((e) => e.type === EventType.STATE_DELTA).map((e) => (e as { delta: { value: string }[] }).delta[0]!.value);
    expect(values.length).toBeGreaterThan(2);
    expect(values.every((v, i) => document.startsWith(v) && (i === 0 || v.length > values[i - 1]!.length))).toBe(true);
    expect(values.at(-1)).toBe(document);
    expect(shared.value).toEqual({ document });
  });

  it("rolls back at once a call whose arguments do not parse", () => {
    const { events, shared } = streamCall({ title: "t" }, `{"document":"${"a".repeat(100)}"}`, { fail: true });
    expect(events.filter((e) => e.type === EventType.STATE_DELTA).length).toBeGreaterThan(0);
    expect(events.findLast((e) => e.type === EventType.STATE_SNAPSHOT)).toEqual({ type: EventType.STATE_SNAPSHOT, snapshot: { title: "t" } });
    expect(shared.value).toEqual({ title: "t" });
  });

  it("rolls back the previous run's prediction when the client's answer denies it, and only then", () => {
    const log = [
      { type: "STATE_SNAPSHOT", payload: { snapshot: { document: "old", other: 1 } } },
      { type: "CUSTOM", payload: { name: "PredictState", value: [{ state_key: "document", tool: "write_document" }] } },
      { type: "TOOL_CALL_START", payload: { toolCallId: "c1", toolCallName: "write_document" } },
      { type: "STATE_DELTA", payload: { delta: [{ op: "add", path: "/document", value: "new" }] } },
    ];
    const answerRun = (content: string, answered = ["c1"]) => {
      const events: AgUiEvent[] = [];
      const shared = new SharedState({ document: "new", other: 2 }, (e) => void events.push(e));
      const messages = [{ id: "m", role: "tool", toolCallId: "c1", content }];
      rollBackDeniedPredictions(input({ messages } as Partial<RunAgentInput>), { events: log, answered: new Set(answered), shared });
      return { events, state: shared.value };
    };
    expect(answerRun(JSON.stringify({ accepted: true })).events).toEqual([]);
    expect(answerRun("Changes confirmed").events).toEqual([]);
    expect(answerRun(JSON.stringify({ accepted: false }), []).events).toEqual([]);
    expect(answerRun(JSON.stringify({ accepted: false }))).toEqual({
      events: [{ type: EventType.STATE_SNAPSHOT, snapshot: { document: "old", other: 2 } }],
      state: { document: "old", other: 2 },
    });
  });
});
