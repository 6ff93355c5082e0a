import "server-only";
import { logger } from "../logger";
import { recordRunDeparture, takeRunDeparture } from "./repository/run-departures";

// AG-UI's Stop whichever instance each request lands on. The requester leaving records a departure
// (run_departures) before its grace starts; then exactly one of three takes it away and decides:
// a client re-attaching through any instance (it becomes the requester: the run goes on), the grace
// ending where the requester left (the run is cancelled), or the user's next message on any
// instance (the run is cancelled at once and the message starts). Nothing of this costs a run
// whose requester stays: only a departure writes.

/** Departures this instance is recording: the grace's end and a re-attach here wait for the write. */
const recording = new Map<string, Promise<boolean>>();

/** The run's requester left (no follower remains here): records it for every instance. */
export function requesterLeft(runId: string): void {
  recording.set(
    runId,
    recordRunDeparture({ runId }).then(
      () => true,
      (err: unknown) => {
        logger.warn({ err, runId }, "could not record that a run's requester left; only this instance knows");
        return false;
      },
    ),
  );
}

/**
 * Takes the run's departure, if it has one: `taken` (this caller decides), `local` (the requester
 * left here but the record failed: this instance alone knows, and decides), `none` (somebody else
 * took it first, or nobody left).
 */
export async function takeDeparture(runId: string): Promise<"taken" | "local" | "none"> {
  const pending = recording.get(runId);
  if (pending) {
    recording.delete(runId);
    if (!(await pending)) return "local";
  }
  return (await takeRunDeparture({ runId })) ? "taken" : "none";
}
