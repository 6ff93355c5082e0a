import "server-only";

// The run event log is stored in batches (run_event_batches: server/runs/event-log.ts writes
// them); this is the log as one row per event for queries that filter or aggregate in SQL.

/**
 * The event log one row per event (run_id, seq, type, payload as text, created_at), for
 * readers that filter or aggregate in SQL; filter on run_id so only that run's batches
 * are expanded.
 */
export const RUN_EVENTS_SQL = `(select b.run_id, b.first_seq + e.n::int - 1 as seq, e.type, e.payload, b.created_at
  from run_event_batches b, unnest(string_to_array(b.types, ' '), string_to_array(b.events, E'\\n')) with ordinality as e(type, payload, n))`;
