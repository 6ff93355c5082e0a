import "server-only";
import { EventType } from "@ag-ui/core";
import { applyJsonPatch, type JsonPatchOperation } from "../lib/json-patch";
import { logger } from "../logger";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { stateProblem } from "../protocols/ag-ui/state-rules";
import { saveThreadState } from "./repository/thread-states";

// Follows a run's shared state through its events (STATE_SNAPSHOT replaces it, STATE_DELTA patches
// it, as a client applies them) so the run's end keeps the state its client saw with the thread
// (thread_states). A run that only continued from the kept state and changed nothing writes nothing.

export class RunStateKeeper {
  private state: unknown = undefined;
  private changed = false;
  private broken = false;
  private snapshots = 0;

  /** `fromThread`: the run's opening STATE_SNAPSHOT (its first) is the state the thread keeps already. */
  constructor(
    private readonly run: { id: string; threadId: string },
    private readonly fromThread: boolean,
  ) {}

  /** An event the run's log took, in log order. */
  observe(event: AgUiEvent): void {
    if (event.type === EventType.STATE_SNAPSHOT) {
      // Shared with the event, never changed: a delta copies the containers it writes to (copy on write).
      this.state = event.snapshot;
      this.broken = false;
      this.changed ||= !(this.snapshots++ === 0 && this.fromThread);
    } else if (event.type === EventType.STATE_DELTA && !this.broken) {
      try {
        this.state = applyJsonPatch(this.state, event.delta as JsonPatchOperation[]);
        this.changed = true;
      } catch (err) {
        // A client could not apply it either: the kept state stays as it was until the next snapshot.
        this.broken = true;
        logger.warn({ runId: this.run.id, reason: err instanceof Error ? err.message : String(err) }, "a run's STATE_DELTA did not apply; its state is not kept");
      }
    }
  }

  /** Writes the run's state as the thread's, when the run changed it and it keeps the rules. */
  async save(): Promise<void> {
    if (!this.changed || this.broken) return;
    const json = JSON.stringify(this.state);
    const problem = stateProblem(this.state, json);
    if (problem) {
      logger.warn({ runId: this.run.id, reason: problem.message }, "a run's final state breaks the state rules; it is not kept");
      return;
    }
    await saveThreadState({ threadId: this.run.threadId, runId: this.run.id, json });
  }
}
