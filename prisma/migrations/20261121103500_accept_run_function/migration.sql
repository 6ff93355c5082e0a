-- Accepting a run in one round trip: the thread is created or locked, the run, its user
-- message and its entry event are written, or nothing is when the runId was seen, the
-- thread belongs to someone else or has a run in progress. Each statement of a volatile
-- PL/pgSQL function takes a fresh snapshot, so the checks after the thread lock see what
-- the previous holder of that lock committed (as the separate statements did before).
-- Returns {"status": "created" | "existing" | "not_found" | "busy", "run": {...}, "busy_run_id": "..."}.
CREATE FUNCTION dispatch_accept_run(
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
  p_entry JSONB
) RETURNS JSONB
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_owner UUID;
  v_run JSONB;
  v_busy TEXT;
  v_run_uuid UUID;
  v_seq INTEGER;
  v_event_seq INTEGER;
BEGIN
  -- Creates the thread for the caller, or takes the lock of the existing one (changing nothing).
  INSERT INTO threads (id, user_id, title, updated_at) VALUES (p_thread_id, p_user_id, p_title, now())
    ON CONFLICT (id) DO UPDATE SET title = threads.title
    RETURNING user_id INTO v_owner;
  IF v_owner <> p_user_id THEN
    RETURN jsonb_build_object('status', 'not_found');
  END IF;

  SELECT to_jsonb(r) INTO v_run FROM (
    SELECT id, run_id AS "runId", thread_id AS "threadId", user_id AS "userId", status, protocol, runner, model,
      error_code AS "errorCode", error_message AS "errorMessage", usage, created_at AS "createdAt", started_at AS "startedAt",
      finished_at AS "finishedAt", deadline_at AS "deadlineAt"
    FROM runs WHERE user_id = p_user_id AND run_id = p_run_id) r;
  IF v_run IS NOT NULL THEN
    RETURN jsonb_build_object('status', 'existing', 'run', v_run);
  END IF;

  SELECT run_id INTO v_busy FROM runs WHERE thread_id = p_thread_id AND status IN ('queued', 'running') LIMIT 1;
  IF v_busy IS NOT NULL THEN
    RETURN jsonb_build_object('status', 'busy', 'busy_run_id', v_busy);
  END IF;

  v_run_uuid := gen_random_uuid();
  INSERT INTO runs (id, run_id, thread_id, user_id, status, protocol, runner, input, deadline_at, started_at, heartbeat_at, binding_id, "authorization", event_id)
  VALUES (v_run_uuid, p_run_id, p_thread_id, p_user_id,
    CASE WHEN p_start THEN 'running'::"RunStatus" ELSE 'queued'::"RunStatus" END,
    p_protocol, p_runner, p_input, p_deadline_at, CASE WHEN p_start THEN now() END, now(),
    p_binding_id, p_authorization, p_entry->>'id');

  UPDATE threads SET last_seq = last_seq + 1, updated_at = now() WHERE id = p_thread_id RETURNING last_seq INTO v_seq;
  INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
  VALUES (gen_random_uuid(), p_thread_id, v_seq, 'user', p_message_id, v_run_uuid, p_content, p_message_metadata, now());

  -- The entry event this run answers: recorded once per id, numbered per conversation.
  IF p_entry IS NOT NULL AND NOT EXISTS (SELECT 1 FROM agent_events WHERE id = p_entry->>'id') THEN
    UPDATE threads SET last_event_seq = last_event_seq + 1 WHERE id = p_thread_id RETURNING last_event_seq INTO v_event_seq;
    INSERT INTO agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
    VALUES (p_entry->>'id', p_thread_id, p_user_id, v_event_seq, p_entry->>'event_type', p_entry->>'source',
      p_entry->>'source_event_type', coalesce(p_entry->'data', '{}'::jsonb), p_entry->'raw_ref');
  END IF;

  SELECT to_jsonb(r) INTO v_run FROM (
    SELECT id, run_id AS "runId", thread_id AS "threadId", user_id AS "userId", status, protocol, runner, model,
      error_code AS "errorCode", error_message AS "errorMessage", usage, created_at AS "createdAt", started_at AS "startedAt",
      finished_at AS "finishedAt", deadline_at AS "deadlineAt"
    FROM runs WHERE id = v_run_uuid) r;
  RETURN jsonb_build_object('status', 'created', 'run', v_run);
END;
$$;
