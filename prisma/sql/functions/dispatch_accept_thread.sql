-- dispatch_accept_run's thread (p: its document; p_run: the new run's id): created for the caller
-- (its first message is this run's) or locked, then its turn. `answer` is set when the accept
-- stops here: "not_found" (someone else's thread), "existing" (a duplicate that waited for the
-- lock while the first one was accepted is that same run, not a busy thread) or "busy". Two
-- duplicates that both get past this insert the same (user_id, run_id), and the caller answers
-- the loser's unique violation with the winner's run.
--
-- threads.active_run_id names the thread's newest run, written here under the thread's lock
-- (dispatch_accept_run is the only statement that creates runs): the thread is busy exactly when
-- that run is queued or running, one primary-key read. A thread whose runs all predate the column
-- (NULL) is checked by scanning its runs once. With "enqueue" a busy thread answers `waiting`:
-- active_run_id keeps naming the run that holds the turn. Otherwise the run takes the turn and
-- `seq` is its first message's place in the thread.
CREATE OR REPLACE FUNCTION dispatch_accept_thread(p JSONB, p_run UUID, OUT answer JSON, OUT is_new BOOLEAN, OUT waiting BOOLEAN, OUT seq INTEGER)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_user_id UUID := (p->>'user_id')::uuid;
  v_thread_id UUID := (p->>'thread_id')::uuid;
  v_owner UUID;
  v_active UUID;
  v_busy TEXT;
  v_run JSON;
BEGIN
  waiting := false;
  -- xmax is 0 on a row this statement inserted.
  -- A new thread's entry event, when the run brings one, is its event 1 (dispatch_accept_entry).
  INSERT INTO threads (id, user_id, title, updated_at, last_seq, last_event_seq, active_run_id)
    VALUES (v_thread_id, v_user_id, p->>'title', now(), 1, CASE WHEN p->'entry' IS NULL THEN 0 ELSE 1 END, p_run)
    ON CONFLICT (id) DO UPDATE SET title = threads.title
    RETURNING user_id, xmax = 0, active_run_id INTO v_owner, is_new, v_active;
  IF v_owner <> v_user_id THEN
    answer := json_build_object('status', 'not_found');
    RETURN;
  END IF;
  IF is_new THEN
    seq := 1;
    RETURN;
  END IF;

  IF v_active IS NULL THEN
    -- A thread no run of which was accepted since active_run_id exists.
    SELECT r.run_id, dispatch_run_json(r) INTO v_busy, v_run FROM runs r
      WHERE r.thread_id = v_thread_id AND r.status IN ('queued', 'running') LIMIT 1;
  ELSE
    SELECT r.run_id, dispatch_run_json(r) INTO v_busy, v_run FROM runs r
      WHERE r.id = v_active AND r.status IN ('queued', 'running');
  END IF;
  IF v_busy = p->>'run_id' THEN
    answer := json_build_object('status', 'existing', 'run', v_run);
  ELSIF v_busy IS NOT NULL AND NOT coalesce((p->>'enqueue')::boolean, false) THEN
    answer := json_build_object('status', 'busy', 'busy_run_id', v_busy);
  ELSIF v_busy IS NOT NULL THEN
    waiting := true;
  ELSE
    UPDATE threads SET last_seq = last_seq + 1, updated_at = now(), active_run_id = p_run WHERE id = v_thread_id RETURNING last_seq INTO seq;
  END IF;
END;
$$;
