-- The run a thread is busy with, named on the thread. Accepting a run asked whether its thread
-- had one by scanning runs for the thread's queued and running ones, and the plan PostgreSQL
-- keeps for that walks the (status, created_at) index: every run in flight, plus the entries
-- finished runs leave behind until a vacuum (status is indexed, so finishing a run is never a HOT
-- update), each fetched from the heap to compare its thread. At 50 concurrent runs that was
-- 27-230 index entries read per accepted run, depending on how long ago the last vacuum was.
--
-- threads.active_run_id names the thread's newest run, written by the accepting statement under
-- the thread's lock (it is the only statement that creates runs). Runs never return to queued or
-- running, and a run is accepted only when the previous newest one has finished, so the thread
-- is busy exactly when that run is queued or running: one primary-key read. Nothing clears it.
-- A thread whose runs all predate this column (NULL) is checked the old way once.

ALTER TABLE "threads" ADD COLUMN "active_run_id" UUID;

-- Accepting a run in one round trip: the thread is created or locked, the run, its user
-- message and its entry event are written, or nothing is when the runId was seen, the
-- thread belongs to someone else or has a run in progress. Each statement of a volatile
-- PL/pgSQL function takes a fresh snapshot, so the checks after the thread lock see what
-- the previous holder of that lock committed. A runId is looked up before the lock (a retry
-- writes nothing) and, for a thread that exists, again as the run in progress: a duplicate
-- that waited for the lock while the first one was accepted is that same run, not a busy
-- thread. Two duplicates that both get past this insert the same (user_id, run_id), and the
-- caller answers the loser's unique violation with the winner's run.
-- With p_history_limit > 0 a created run also gets what the built-in agent starts from (see
-- dispatch_agent_context), read in the same round trip.
-- p_binding_check (a plan made from a cached copy of the bindings): when the effective binding
-- is no longer the one planned with (id and stamp), nothing is written and the status is "replan".
-- Returns {"status": "created" | "existing" | "not_found" | "busy" | "replan", "run": {...}, "busy_run_id": "...",
--          "context": {"history": [...], "memory": [...]}}.
CREATE OR REPLACE FUNCTION dispatch_accept_run(
  p_user_id UUID,
  p_thread_id UUID,
  p_title TEXT,
  p_run_id TEXT,
  p_protocol TEXT,
  p_runner TEXT,
  p_input JSONB,
  p_deadline_at TIMESTAMP(3),
  p_binding_id UUID,
  p_authorization JSONB,
  p_start BOOLEAN,
  p_message_id TEXT,
  p_content TEXT,
  p_message_metadata JSONB,
  p_entry JSONB,
  p_history_limit INTEGER,
  p_memory_limit INTEGER,
  p_binding_check JSONB
) RETURNS JSON
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_owner UUID;
  v_new BOOLEAN;
  v_active UUID;
  v_run JSON;
  v_busy TEXT;
  v_run_uuid UUID;
  v_seq INTEGER;
  v_event_seq INTEGER;
  v_context JSON;
BEGIN
  SELECT dispatch_run_json(r) INTO v_run FROM runs r WHERE r.user_id = p_user_id AND r.run_id = p_run_id;
  IF v_run IS NOT NULL THEN
    RETURN json_build_object('status', 'existing', 'run', v_run);
  END IF;

  IF p_binding_check IS NOT NULL AND (
    SELECT (e.id::text, e.stamp) IS DISTINCT FROM (p_binding_check->>'id', p_binding_check->>'stamp')
    FROM (SELECT 1) one LEFT JOIN dispatch_effective_binding(p_user_id, p_thread_id, p_binding_check->>'event_type') e ON true
  ) THEN
    RETURN json_build_object('status', 'replan');
  END IF;

  -- Creates the thread for the caller (its first message is this run's), or takes the lock of
  -- the existing one (changing nothing). xmax is 0 on a row this statement inserted.
  v_run_uuid := gen_random_uuid();
  INSERT INTO threads (id, user_id, title, updated_at, last_seq, active_run_id) VALUES (p_thread_id, p_user_id, p_title, now(), 1, v_run_uuid)
    ON CONFLICT (id) DO UPDATE SET title = threads.title
    RETURNING user_id, xmax = 0, active_run_id INTO v_owner, v_new, v_active;
  IF v_owner <> p_user_id THEN
    RETURN json_build_object('status', 'not_found');
  END IF;

  IF v_new THEN
    v_seq := 1;
  ELSE
    IF v_active IS NULL THEN
      -- A thread no run of which was accepted since active_run_id exists.
      SELECT r.run_id, dispatch_run_json(r) INTO v_busy, v_run FROM runs r
        WHERE r.thread_id = p_thread_id AND r.status IN ('queued', 'running') LIMIT 1;
    ELSE
      SELECT r.run_id, dispatch_run_json(r) INTO v_busy, v_run FROM runs r
        WHERE r.id = v_active AND r.status IN ('queued', 'running');
    END IF;
    IF v_busy = p_run_id THEN
      RETURN json_build_object('status', 'existing', 'run', v_run);
    ELSIF v_busy IS NOT NULL THEN
      RETURN json_build_object('status', 'busy', 'busy_run_id', v_busy);
    END IF;
    UPDATE threads SET last_seq = last_seq + 1, updated_at = now(), active_run_id = v_run_uuid WHERE id = p_thread_id RETURNING last_seq INTO v_seq;
  END IF;

  INSERT INTO runs (id, run_id, thread_id, user_id, status, protocol, runner, input, deadline_at, started_at, heartbeat_at, binding_id, "authorization", event_id)
  VALUES (v_run_uuid, p_run_id, p_thread_id, p_user_id,
    CASE WHEN p_start THEN 'running'::"RunStatus" ELSE 'queued'::"RunStatus" END,
    p_protocol, p_runner, p_input, p_deadline_at, CASE WHEN p_start THEN now() END, now(),
    p_binding_id, p_authorization, p_entry->>'id')
  RETURNING dispatch_run_json(runs) INTO v_run;

  INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
  VALUES (gen_random_uuid(), p_thread_id, v_seq, 'user', p_message_id, v_run_uuid, p_content, p_message_metadata, now());

  -- The entry event this run answers: recorded once per id, numbered per conversation.
  IF p_entry IS NOT NULL AND NOT EXISTS (SELECT 1 FROM agent_events WHERE id = p_entry->>'id') THEN
    UPDATE threads SET last_event_seq = last_event_seq + 1 WHERE id = p_thread_id RETURNING last_event_seq INTO v_event_seq;
    INSERT INTO agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
    VALUES (p_entry->>'id', p_thread_id, p_user_id, v_event_seq, p_entry->>'event_type', p_entry->>'source',
      p_entry->>'source_event_type', coalesce(p_entry->'data', '{}'::jsonb), p_entry->'raw_ref');
  END IF;

  IF p_history_limit > 0 THEN
    v_context := dispatch_agent_context(p_thread_id, v_run_uuid, p_user_id, CASE WHEN v_new THEN 0 ELSE p_history_limit END, p_memory_limit);
  END IF;
  RETURN json_build_object('status', 'created', 'run', v_run, 'context', v_context);
END;
$$;
