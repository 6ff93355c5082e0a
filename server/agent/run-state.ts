import "server-only";
import { EventType } from "@ag-ui/core";
import { applyJsonPatch, type JsonPatchOperation } from "../lib/json-patch";
import { sendsState } from "../protocols/ag-ui/state-rules";
import type { RunnerInput } from "../kernel/runs";

type Resume = RunnerInput["resume"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The shared state a run starts from: its input's (the client's, else the thread's kept state,
 * server/thread-state/service.ts), or for an execution that takes the run over, the state its log
 * left (snapshots and deltas replayed as a client applies them). Null when the run has none.
 */
export function runStateOf(input: RunnerInput["input"], resume: Resume): Record<string, unknown> | null {
  let state: unknown = sendsState(input.state) ? input.state : null;
  for (const event of resume?.events ?? []) {
    if (event.type === EventType.STATE_SNAPSHOT) state = event.snapshot;
    else if (event.type === EventType.STATE_DELTA) {
      try {
        state = applyJsonPatch(state, event.delta as JsonPatchOperation[]);
      } catch {
        // The log holds only deltas that applied when they streamed; one that does not now leaves the state as it was.
      }
    }
  }
  return isObject(state) ? state : null;
}
