import "server-only";
import { EventType } from "@ag-ui/core";
import { z } from "zod";
import { applyJsonPatch, type JsonPatchOperation } from "../lib/json-patch";
import { parsePartialJson } from "../lib/partial-json";
import { isSecretName } from "../protocols/ag-ui/state-rules";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import type { RunnerInput } from "../kernel/runs";
import type { ToolEventRow } from "./repository";
import type { SharedState } from "./state-tool";

// Predictive state updates (docs/ag-ui.md, "Predictive state"), in the convention AG-UI clients
// know: the CUSTOM event `PredictState` with value [{state_key, tool, tool_argument}] says that a
// call of `tool` will set `state[state_key]` to its argument `tool_argument` (the whole arguments
// when absent). Dispatch announces it just before such a call's TOOL_CALL_START and streams the
// argument into state as STATE_DELTA while the arguments stream, so clients that read only state
// (@ag-ui/client 1.0's HttpAgent) see the document grow too. The predicted tools are the client's
// own (the dojo's human-in-the-loop `write_document`): the client's answer to the call keeps the
// prediction, or rolls it back (a STATE_SNAPSHOT) when it denies (`{"accepted": false}`) or fails.

export const PREDICT_STATE_EVENT = "PredictState";

const predictionSchema = z.object({
  state_key: z.string().min(1).max(256),
  tool: z.string().min(1).max(64),
  tool_argument: z.string().min(1).max(256).optional(),
});
export type Prediction = z.infer<typeof predictionSchema>;

/** The dojo's predictive state page: its write_document tool writes state.document. */
const DOJO_PREDICTION: Prediction = { state_key: "document", tool: "write_document", tool_argument: "document" };

// A prediction is tried again only after the arguments grew this much (or by an eighth), so a long
// document costs a few dozen deltas, not one per chunk.
const MIN_NEW_ARGUMENT_CHARS = 64;

type Emit = RunnerInput["emit"];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What the run predicts: the client's `forwardedProps.predictState` (the PredictState value's
 * shape), else the dojo's write_document when the client declares that tool. Only the client's
 * tools are predicted, and never into a member named like a credential.
 */
export function runPredictions(input: RunAgentInput): Prediction[] {
  const clientTools = new Set(input.tools.map((t) => t.name));
  const props = isObject(input.forwardedProps) ? input.forwardedProps.predictState : undefined;
  const asked = z.array(predictionSchema).max(20).safeParse(props);
  const predictions = asked.success ? asked.data : clientTools.has(DOJO_PREDICTION.tool) ? [DOJO_PREDICTION] : [];
  return predictions.filter((p) => clientTools.has(p.tool) && !isSecretName(p.state_key));
}

/** The state members a prediction writes, as they were before it: present ones with their value. */
type Before = { keys: string[]; values: Record<string, unknown> };

const beforeOf = (state: Record<string, unknown>, keys: string[]): Before => ({
  keys,
  values: Object.fromEntries(keys.filter((k) => Object.hasOwn(state, k)).map((k) => [k, state[k]])),
});

type PredictedCall = { entries: Prediction[]; args: string; tried: number; last: Map<string, string>; before: Before };

/** The predictions of one run's calls, fed by the event translator as the calls stream. */
export class StatePredictor {
  private readonly calls = new Map<string, PredictedCall>();

  static open(predictions: Prediction[], shared: SharedState | null, emit: Emit): StatePredictor | null {
    return predictions.length > 0 && shared ? new StatePredictor(predictions, shared, emit) : null;
  }

  private constructor(
    private readonly predictions: Prediction[],
    private readonly shared: SharedState,
    private readonly emit: Emit,
  ) {}

  /** Called before a call's TOOL_CALL_START: whether its tool predicts state (then PredictState is out). */
  start(wireId: string, toolName: string): boolean {
    const entries = this.predictions.filter((p) => p.tool === toolName);
    if (entries.length === 0) return false;
    this.emit({ type: EventType.CUSTOM, name: PREDICT_STATE_EVENT, value: entries });
    const before = beforeOf(this.shared.value, entries.map((e) => e.state_key));
    this.calls.set(wireId, { entries, args: "", tried: 0, last: new Map(), before });
    return true;
  }

  /** A chunk of the call's arguments: the state they predict so far, now and then. */
  args(wireId: string, delta: string): void {
    const call = this.calls.get(wireId);
    if (!call) return;
    call.args += delta;
    if (call.args.length - call.tried < Math.max(MIN_NEW_ARGUMENT_CHARS, call.tried / 8)) return;
    call.tried = call.args.length;
    const partial = parsePartialJson(call.args);
    if (isObject(partial)) this.predict(call, partial);
  }

  /** The call's complete arguments: the state it predicts. */
  settle(wireId: string, input: unknown): void {
    const call = this.calls.get(wireId);
    if (call && isObject(input)) this.predict(call, input);
  }

  /** The call could not be made (arguments that do not parse): what it predicted is rolled back. */
  fail(wireId: string): void {
    const call = this.calls.get(wireId);
    if (call) this.shared.restore(call.before);
    this.calls.delete(wireId);
  }

  private predict(call: PredictedCall, args: Record<string, unknown>): void {
    for (const entry of call.entries) {
      const value = entry.tool_argument ? args[entry.tool_argument] : args;
      if (value === undefined) continue;
      const json = JSON.stringify(value);
      if (call.last.get(entry.state_key) === json) continue;
      call.last.set(entry.state_key, json);
      this.shared.predict(entry.state_key, value);
    }
  }
}

/** Whether the client's answer to a predicted call keeps what it predicted. */
function keepsPrediction(answer: { content: unknown; error?: string | null }): boolean {
  if (answer.error) return false;
  if (typeof answer.content !== "string") return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.content);
  } catch {
    return true;
  }
  return !(isObject(parsed) && (parsed.accepted === false || parsed.approved === false));
}

/**
 * The previous run's predicted calls and the state members they wrote as they were before, read
 * from its log: its state events replayed up to each PredictState.
 */
function predictedCalls(events: readonly ToolEventRow[]): Map<string, Before> {
  const found = new Map<string, Before>();
  let state: unknown = {};
  let pending: Before | null = null;
  for (const { type, payload } of events) {
    if (type === EventType.STATE_SNAPSHOT) state = payload.snapshot;
    else if (type === EventType.STATE_DELTA) {
      try {
        state = applyJsonPatch(state, payload.delta as JsonPatchOperation[]);
      } catch {
        // A client could not apply it either; the state stays as it was.
      }
    } else if (type === EventType.CUSTOM && payload.name === PREDICT_STATE_EVENT && Array.isArray(payload.value) && isObject(state)) {
      const keys = payload.value.flatMap((p: unknown) => (isObject(p) && typeof p.state_key === "string" ? [p.state_key] : []));
      pending = beforeOf(state, keys);
    } else if (type === EventType.TOOL_CALL_START && pending && typeof payload.toolCallId === "string") {
      found.set(payload.toolCallId, pending);
      pending = null;
    }
  }
  return found;
}

/**
 * Rolls back what the previous run predicted for the calls this run's client answered with a
 * denial or an error (`answered`: the calls this run answers): one STATE_SNAPSHOT with those members as they were before each call.
 */
export function rollBackDeniedPredictions(
  input: RunAgentInput,
  opts: { events: readonly ToolEventRow[]; answered: ReadonlySet<string>; shared: SharedState | null },
): void {
  const { events, answered, shared } = opts;
  if (!shared) return;
  // AG-UI clients resend the whole conversation: only the answers to the calls still open count.
  const denied = input.messages.filter((m) => m.role === "tool" && answered.has(m.toolCallId) && !keepsPrediction(m));
  if (denied.length === 0) return;
  const predicted = predictedCalls(events);
  const befores = denied.flatMap((m) => (m.role === "tool" && predicted.get(m.toolCallId)) || []);
  if (befores.length > 0) shared.restore(...befores);
}
