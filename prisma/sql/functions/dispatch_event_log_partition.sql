-- The event log's partition for the month that starts at p_month (run_event_batches is partitioned
-- by range on run_created_at, one partition a month: migration 20261207230000_partitioned_event_log,
-- docs/event-log-lifecycle.md). Made if missing; true when this call made it.
-- The partition is made outside the table and then attached, which locks the log's writers out
-- of nothing (ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, where CREATE TABLE ... PARTITION
-- OF would take ACCESS EXCLUSIVE). Rows the DEFAULT partition took for that month (the upkeep fell
-- behind) move into it first, in the same transaction: the default partition is locked from here
-- to the commit, so no row of the month can land there between the move and the attach.
CREATE OR REPLACE FUNCTION dispatch_event_log_partition(p_month TIMESTAMP) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_from TIMESTAMP(3) := date_trunc('month', p_month);
  v_to TIMESTAMP(3) := date_trunc('month', p_month) + interval '1 month';
  v_name TEXT := 'run_event_batches_' || to_char(date_trunc('month', p_month), 'YYYY_MM');
BEGIN
  IF to_regclass(quote_ident(v_name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  LOCK TABLE run_event_batches_default IN ACCESS EXCLUSIVE MODE;
  -- Another instance may have made it while this one waited for the lock.
  IF to_regclass(quote_ident(v_name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE run_event_batches INCLUDING DEFAULTS)', v_name);
  EXECUTE format(
    'WITH moved AS (DELETE FROM run_event_batches_default WHERE run_created_at >= %L AND run_created_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
    v_from, v_to, v_name);
  EXECUTE format('ALTER TABLE run_event_batches ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_name, v_from, v_to);
  RETURN true;
END;
$$;
