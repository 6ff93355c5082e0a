import type { EventSequenceGuard } from "../protocols/ag-ui/event-guard";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { RunMeter } from "../telemetry/run-meter";
import type { LiveRun } from "./live-runs";
import type { MessageRecorder } from "./message-recorder";
import type { RunStateKeeper } from "./state-keeper";
import type { EmitExtras, RunHandle } from "../kernel/runs";

/**
 * Why a run was stopped: a cancel request, its deadline, its requester leaving (AG-UI's Stop),
 * the database saying it is closed or someone else's already (recovery on another instance), or
 * this instance stopping (the run is handed back, and another instance goes on with it).
 */
export type AbortReason = "cancelled" | "deadline" | "requester_gone" | "closed_elsewhere" | "handed_off";

/** One execution of a run on this instance: what it streams through, and what it has seen. */
export type Execution = {
  run: RunHandle;
  attempt: number;
  live: LiveRun;
  controller: AbortController;
  recorder: MessageRecorder;
  guard: EventSequenceGuard;
  meter: RunMeter;
  toolCalls: number;
  /** The run's shared state as its events leave it, kept with the thread at its end. */
  state: RunStateKeeper;
  /** An event the guard accepted: metered, counted, put in the live log, recorded for the thread. */
  append(accepted: AgUiEvent, extras?: EmitExtras): void;
  /** An event of the runner's: checked by the guard, then appended. */
  put(event: AgUiEvent, extras?: EmitExtras): void;
};
