-- Retention by partition (docs/event-log-lifecycle.md): drops the event log's partition p_name
-- (run_event_batches_YYYY_MM, the month its runs were created in) once every run of that month
-- started and finished before p_before, marking each run that had events there expired in
-- run_event_archives in the same transaction, so a replay answers 410 exactly as after the
-- per-run deletion. Answers how many runs it marked, or null when the partition stays: a run of
-- the month is not finished (or finished after p_before), or an archived run of the month still
-- has its object in the storage (the per-run step deletes those first, then this call goes on).
-- Messages, runs and threads are not touched. DETACH needs the parent table alone for an instant:
-- the caller bounds its wait (lock_timeout) so the log's writers never queue behind it for long.
CREATE OR REPLACE FUNCTION dispatch_event_log_drop_partition(p_name TEXT, p_before TIMESTAMP) RETURNS INTEGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_from TIMESTAMP(3);
  v_to TIMESTAMP(3);
  v_marked INTEGER;
BEGIN
  IF p_name !~ '^run_event_batches_[0-9]{4}_[0-9]{2}$' OR to_regclass(quote_ident(p_name)) IS NULL THEN
    RETURN null;
  END IF;
  v_from := to_timestamp(right(p_name, 7), 'YYYY_MM')::timestamp;
  v_to := v_from + interval '1 month';
  IF v_to > p_before THEN
    RETURN null;
  END IF;
  IF EXISTS (SELECT 1 FROM runs r WHERE r.created_at >= v_from AND r.created_at < v_to
               AND (r.status NOT IN ('completed', 'failed', 'cancelled') OR r.finished_at IS NULL OR r.finished_at >= p_before))
     OR EXISTS (SELECT 1 FROM runs r JOIN run_event_archives a ON a.run_id = r.id
               WHERE r.created_at >= v_from AND r.created_at < v_to AND a.expired_at IS NULL AND a.path IS NOT NULL) THEN
    RETURN null;
  END IF;
  EXECUTE format(
    'WITH hot AS (SELECT run_id, sum(last_seq - first_seq + 1)::int AS n, max(last_seq) AS last FROM %I GROUP BY run_id),
     marked AS (
       INSERT INTO run_event_archives (run_id, event_count, last_seq, expired_at)
       SELECT run_id, n, last, now() FROM hot
       ON CONFLICT (run_id) DO UPDATE SET expired_at = now() WHERE run_event_archives.expired_at IS NULL
       RETURNING 1)
     SELECT count(*)::int FROM marked', p_name) INTO v_marked;
  EXECUTE format('ALTER TABLE run_event_batches DETACH PARTITION %I', p_name);
  EXECUTE format('DROP TABLE %I', p_name);
  RETURN v_marked;
END;
$$;
