-- The enqueue policy for busy threads (issue #25): a run that waits its turn keeps the messages it
-- will add in runs.queued_input; dispatch_accept_run (sql/functions/dispatch_accept_run.sql) now
-- records such runs and parks their graphile-worker job, dispatch_start_queued_run starts them, and
-- the trigger below passes a thread's turn on when its run ends. graphile-worker's own schema is
-- installed by the migrator (scripts/lib/migrator.ts) before the migrations.

-- AlterTable
ALTER TABLE "agent_bindings" ADD COLUMN     "multitask_strategy" TEXT;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "queued_input" JSONB;

-- As sql/functions/dispatch_run_ended.sql defines it at this point (the file supersedes it).
-- The trigger on runs (migration 20261127010000_run_queue) when a run leaves queued/running, on
-- whatever path it ends (its executor's end, a takeover's close, a cancel, the console): a run
-- that ended while it waited its turn (the enqueue policy) takes its job with it; when the run
-- that held the thread's turn (threads.active_run_id) ends, the turn passes to the thread's oldest
-- waiting run, and its job, parked at run_at = infinity since its accept, becomes due now
-- (add_job with the same job_key updates the parked job and wakes the workers).
-- A waiting run deleted with its thread or user takes its job too.
-- The thread's row is locked first: an accept holding it may be queueing a run behind the one
-- ending, and the search for the next run must see that accept's commit.
CREATE OR REPLACE FUNCTION dispatch_run_ended() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_active UUID;
  v_next UUID;
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM graphile_worker.remove_job(OLD.id::text);
    RETURN NULL;
  END IF;
  IF NEW.queued_input IS NOT NULL THEN
    PERFORM graphile_worker.remove_job(NEW.id::text);
  END IF;
  SELECT active_run_id INTO v_active FROM threads WHERE id = NEW.thread_id FOR UPDATE;
  IF v_active IS DISTINCT FROM NEW.id THEN
    RETURN NULL;
  END IF;
  SELECT r.id INTO v_next FROM runs r
    WHERE r.status = 'queued' AND r.thread_id = NEW.thread_id AND r.queued_input IS NOT NULL AND r.id <> NEW.id
    ORDER BY r.created_at, r.id LIMIT 1;
  IF v_next IS NULL THEN
    RETURN NULL;
  END IF;
  UPDATE threads SET active_run_id = v_next WHERE id = NEW.thread_id;
  PERFORM graphile_worker.add_job('dispatch_start_run', json_build_object('id', v_next), job_key := v_next::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER runs_ended AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running'))
  EXECUTE FUNCTION dispatch_run_ended();
CREATE TRIGGER runs_waiting_deleted AFTER DELETE ON runs
  FOR EACH ROW WHEN (OLD.queued_input IS NOT NULL AND OLD.status = 'queued')
  EXECUTE FUNCTION dispatch_run_ended();
