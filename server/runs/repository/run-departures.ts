import "server-only";
import { getPool } from "@/server/db";

// run_departures: runs whose AG-UI requester left before their end (server/runs/departures.ts).
// Each statement touches one row by its key; the one that deletes it decides what happens next.

/** Records that the run's requester left (again: the time of this departure). */
export async function recordRunDeparture({ runId }: { runId: string }): Promise<void> {
  await getPool().query({
    name: "dispatch-run-departure-record",
    text: `insert into run_departures (run_id, left_at) values ($1, now()) on conflict (run_id) do update set left_at = excluded.left_at`,
    values: [runId],
  });
}

/** Takes the run's departure away; true when there was one (this caller decides: re-attach, cancel or supersede). */
export async function takeRunDeparture({ runId }: { runId: string }): Promise<boolean> {
  const { rowCount } = await getPool().query({
    name: "dispatch-run-departure-take",
    text: `delete from run_departures where run_id = $1`,
    values: [runId],
  });
  return (rowCount ?? 0) > 0;
}
