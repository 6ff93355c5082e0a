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
