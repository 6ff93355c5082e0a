-- The binding that answers an event: the narrowest enabled one (thread, then user, then
-- default) whose runner is available; the newest wins within a scope (then the greatest id). `stamp` changes
-- whenever the binding does, so a plan made from a cached copy can be checked.
CREATE FUNCTION dispatch_effective_binding(p_user_id UUID, p_thread_id UUID, p_event_type TEXT)
RETURNS TABLE (id UUID, stamp TEXT)
LANGUAGE sql STABLE AS $$
  SELECT b.id, b.updated_at::text FROM agent_bindings b JOIN agent_runners r ON r.id = b.runner_id
  WHERE b.enabled AND r.available AND p_event_type = ANY(b.event_types)
    AND ((b.scope = 'thread' AND b.thread_id = p_thread_id) OR (b.scope = 'user' AND b.user_id = p_user_id) OR b.scope = 'default')
  ORDER BY CASE b.scope WHEN 'thread' THEN 0 WHEN 'user' THEN 1 ELSE 2 END, b.created_at DESC, b.id DESC
  LIMIT 1
$$;

-- What the built-in agent starts from: the thread's newest messages that belong to other runs
-- (oldest first) and the user's newest memory facts, as {"history": [...], "memory": [...]}.
CREATE FUNCTION dispatch_agent_context(p_thread_id UUID, p_run_id UUID, p_user_id UUID, p_history_limit INTEGER, p_memory_limit INTEGER)
RETURNS JSONB
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'history', (SELECT coalesce(jsonb_agg(h ORDER BY h.seq), '[]'::jsonb) FROM (
      SELECT role, content, metadata, run_id AS "runId", seq FROM messages
      WHERE thread_id = p_thread_id AND (run_id IS NULL OR run_id <> p_run_id) AND role IN ('user', 'assistant', 'tool')
      ORDER BY seq DESC LIMIT p_history_limit) h),
    'memory', (SELECT coalesce(jsonb_agg(f), '[]'::jsonb) FROM (
      SELECT key, value FROM memory_facts WHERE user_id = p_user_id ORDER BY updated_at DESC, key LIMIT p_memory_limit) f))
$$;

-- Accepting a run in one round trip: the thread is created or locked, the run, its user
-- message and its entry event are written, or nothing is when the runId was seen, the
-- thread belongs to someone else or has a run in progress. Each statement of a volatile
-- PL/pgSQL function takes a fresh snapshot, so the checks after the thread lock see what
-- the previous holder of that lock committed (as the separate statements did before).
-- With p_history_limit > 0 a created run also gets what the built-in agent starts from (the
-- thread's newest messages of other runs, oldest first, and the user's newest memory facts),
-- read in the same round trip.
-- p_binding_check (a plan made from a cached copy of the bindings): when the effective binding
-- is no longer the one planned with (id and stamp), nothing is written and the status is "replan".
-- Returns {"status": "created" | "existing" | "not_found" | "busy" | "replan", "run": {...}, "busy_run_id": "...",
--          "context": {"history": [...], "memory": [...]}}.
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
  p_entry JSONB,
  p_history_limit INTEGER,
  p_memory_limit INTEGER,
  p_binding_check JSONB
) RETURNS JSONB
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_owner UUID;
  v_run JSONB;
  v_busy TEXT;
  v_run_uuid UUID;
  v_seq INTEGER;
  v_event_seq INTEGER;
  v_context JSONB;
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

  IF p_binding_check IS NOT NULL AND (
    SELECT (e.id::text, e.stamp) IS DISTINCT FROM (p_binding_check->>'id', p_binding_check->>'stamp')
    FROM (SELECT 1) one LEFT JOIN dispatch_effective_binding(p_user_id, p_thread_id, p_binding_check->>'event_type') e ON true
  ) THEN
    RETURN jsonb_build_object('status', 'replan');
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
  IF p_history_limit > 0 THEN
    v_context := dispatch_agent_context(p_thread_id, v_run_uuid, p_user_id, p_history_limit, p_memory_limit);
  END IF;
  RETURN jsonb_build_object('status', 'created', 'run', v_run, 'context', v_context);
END;
$$;
