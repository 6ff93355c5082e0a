import "server-only";
import { EventType } from "@ag-ui/core";
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import { z } from "zod";
import { applyJsonPatch, jsonPatchOperationSchema, JsonPatchError, type JsonPatchOperation } from "../lib/json-patch";
import { MAX_STATE_BYTES, patchProblem, stateBytes, stateProblem } from "../protocols/ag-ui/state-rules";
import type { RunnerInput } from "../kernel/runs";
import { toolFailureText, type ToolOutcome } from "./tool-outcome";

// The built-in agent's hand on AG-UI shared state (docs/ag-ui.md, "Shared state"): update_state
// takes RFC 6902 JSON Patch operations, applies them to the run's current state, all or nothing,
// and streams them as one STATE_DELTA, which a client applies to its copy as it is. A patch that
// does not apply, or leaves a state that breaks the state rules, changes nothing and is a failure
// the model reads and can correct.

export const STATE_TOOL_NAME = "update_state";

/** Most operations one call may carry. */
export const MAX_STATE_OPERATIONS = 100;
// Past this size a success answers with how many operations applied, not the whole new state.
const ECHO_STATE_BYTES = 4 * 1024;

const operationsSchema = z.object({ operations: z.array(jsonPatchOperationSchema).min(1).max(MAX_STATE_OPERATIONS) });

const PARAMETERS: JSONSchema7 = {
  type: "object",
  properties: {
    operations: {
      type: "array",
      description: "RFC 6902 JSON Patch operations, applied in order to the shared state, all or nothing",
      minItems: 1,
      maxItems: MAX_STATE_OPERATIONS,
      items: {
        type: "object",
        properties: {
          op: { type: "string", enum: ["add", "remove", "replace", "move", "copy", "test"], description: "The operation" },
          path: { type: "string", description: 'JSON Pointer of the target, e.g. "/plan/steps/0/status" ("-" appends to an array)' },
          from: { type: "string", description: "JSON Pointer of the source, for move and copy" },
          value: { description: "The value, for add, replace and test" },
        },
        required: ["op", "path"],
      },
    },
  },
  required: ["operations"],
};

const DESCRIPTION =
  "Changes the shared state the user's application shows (its current value is in the system prompt under \"Shared state (JSON)\"). " +
  "Give RFC 6902 JSON Patch operations; they apply in order, all or nothing, and the application sees the change at once. Never put secrets in state.";

// A member as JSON: its name quoted (the pointer's token is never shorter than the name it escapes),
// a colon, its value and a comma.
const memberBytes = (path: string, value: unknown) => stateBytes(JSON.stringify(path.slice(path.lastIndexOf("/") + 1))) + stateBytes(JSON.stringify(value) ?? "") + 2;

/**
 * No less than the serialized size of a state of `before` bytes once `operations` applied: what each
 * writes is added, nothing is taken back for what it replaces or removes. Infinity for a copy (its
 * value's size is the state's to tell) and for a change of the whole state.
 */
function grownBytes(before: number, operations: readonly JsonPatchOperation[]): number {
  let bytes = before;
  for (const op of operations) {
    // The whole state replaced or removed: it is checked whole.
    if (op.path === "") return Infinity;
    if (op.op === "add" || op.op === "replace") bytes += memberBytes(op.path, op.value);
    else if (op.op === "move") bytes += memberBytes(op.path, null);
    else if (op.op === "copy") return Infinity;
  }
  return bytes;
}

/**
 * The run's shared state as the agent changes it; each change streams as a STATE_DELTA. Its size
 * is followed as a bound (grownBytes), so a change to a large state is checked against the limit
 * without serializing all of it: only a change that could pass the limit measures it again.
 */
export class SharedState {
  /** No less than the serialized size of `current`; null until first needed. */
  private bytes: number | null = null;

  /** The run's shared state when it starts with one, else null (no update_state). */
  static open(initial: Record<string, unknown> | null, emit: RunnerInput["emit"]): SharedState | null {
    return initial ? new SharedState(initial, emit) : null;
  }

  constructor(
    private current: Record<string, unknown>,
    private readonly emit: RunnerInput["emit"],
  ) {}

  get value(): Record<string, unknown> {
    return this.current;
  }

  /**
   * Why `next` (the current state after `operations`) cannot be the state, or null; and the bound
   * of its size to keep. Serializes `next` only when the bound could pass the limit, or `small` asks
   * for its text below that many bytes.
   */
  private check(next: Record<string, unknown>, operations: readonly JsonPatchOperation[], small = 0): { problem: ReturnType<typeof stateProblem>; bytes: number; json: string | null } {
    this.bytes ??= stateBytes(JSON.stringify(this.current));
    const bound = grownBytes(this.bytes, operations);
    if (bound <= MAX_STATE_BYTES && bound > small) return { problem: patchProblem(operations), bytes: bound, json: null };
    const json = JSON.stringify(next) as string | undefined;
    // The state before the change kept the rules: only its size and what the change wrote are checked again.
    const problem = stateProblem(next, json, { secrets: false }) ?? patchProblem(operations);
    return { problem, bytes: problem || json === undefined ? 0 : stateBytes(json), json: json ?? null };
  }

  /**
   * A predicted member's value while its call streams (predictive-state.ts), as one STATE_DELTA.
   * A value that would break the state rules is not predicted.
   */
  predict(key: string, value: unknown): void {
    const path = `/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const operations: JsonPatchOperation[] = [{ op: "add", path, value }];
    const next = { ...this.current, [key]: value };
    const checked = this.check(next, operations);
    if (checked.problem) return;
    this.current = next;
    this.bytes = checked.bytes;
    this.emit({ type: EventType.STATE_DELTA, delta: operations });
  }

  /** Puts members back as they were before predictions (absent ones removed), as one STATE_SNAPSHOT. */
  restore(...befores: { keys: string[]; values: Record<string, unknown> }[]): void {
    const next = { ...this.current };
    // The earliest call's values win: they are the state before any of them.
    for (const before of [...befores].reverse()) {
      for (const key of before.keys) {
        if (Object.hasOwn(before.values, key)) next[key] = before.values[key];
        else delete next[key];
      }
    }
    this.current = next;
    this.bytes = null;
    this.emit({ type: EventType.STATE_SNAPSHOT, snapshot: next });
  }

  /** Applies one update_state call's input: the answer the model reads, and on success the delta streamed. */
  update(input: unknown): ToolOutcome {
    const parsed = operationsSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      return failure("INVALID_PATCH", `${where}${issue?.message ?? "invalid input"}; give {"operations": [{"op", "path", "value"|"from"}]}`);
    }
    const operations = parsed.data.operations as JsonPatchOperation[];
    let next: unknown;
    try {
      next = applyJsonPatch(this.current, operations);
    } catch (err) {
      if (!(err instanceof JsonPatchError)) throw err;
      return failure("PATCH_FAILED", `${err.message}; the state is unchanged`);
    }
    const { problem, bytes, json } = this.check(next as Record<string, unknown>, operations, ECHO_STATE_BYTES);
    if (problem) return failure(problem.status === 413 ? "STATE_TOO_LARGE" : "INVALID_STATE", `${problem.message}; the state is unchanged`);
    this.current = next as Record<string, unknown>;
    this.bytes = bytes;
    this.emit({ type: EventType.STATE_DELTA, delta: operations });
    const answer = json !== null && json.length <= ECHO_STATE_BYTES ? { status: "success", applied: operations.length, state: next } : { status: "success", applied: operations.length };
    return { toolResponseText: JSON.stringify(answer), uiSchema: null, output: null };
  }
}

function failure(code: string, message: string): ToolOutcome {
  return { toolResponseText: toolFailureText(code, message), uiSchema: null, output: null };
}

/** update_state for the model loop, over the run's shared state. */
export function stateTool(state: SharedState): Tool {
  return tool({
    description: DESCRIPTION,
    // Validated by SharedState.update, so a bad patch is an answer the model can act on, not the SDK's error.
    inputSchema: jsonSchema<unknown>(PARAMETERS),
    strict: false,
    execute: async (input): Promise<ToolOutcome> => state.update(input),
    toModelOutput: ({ output }) => ({ type: "text", value: (output as ToolOutcome).toolResponseText }),
  });
}
