-- A queued run's turn came (its job runs, see dispatch_run_ended): the run becomes running with
-- its lease (heartbeat) on the caller, and the messages it brought (runs.queued_input: the
-- client's tool answers, then its user message) are added to the thread now, after the answer
-- of the run before it. Nothing happens, and NULL is returned, when the run is not waiting any
-- more (cancelled, started already) or a cancel was asked for (the cancel closes it); "not_its_turn"
-- when the thread's turn is another run's (that run's end passes it on). p_instance, the caller
-- that executes it, is recorded as the run's attempt (run_attempts) in the same transaction.
-- Returns {"status": "started", "run": {...}, "runner", "input", "generation", "attempt", "apiKeyHash", "bindingId"}.
CREATE OR REPLACE FUNCTION dispatch_start_queued_run(p_run UUID, p_instance TEXT DEFAULT NULL) RETURNS JSON
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_run runs;
  v_active UUID;
  v_tools JSONB;
  v_count INTEGER;
  v_seq INTEGER;
  v_json JSON;
BEGIN
  SELECT * INTO v_run FROM runs WHERE id = p_run AND status = 'queued' AND queued_input IS NOT NULL AND cancel_requested_at IS NULL FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  SELECT active_run_id INTO v_active FROM threads WHERE id = v_run.thread_id FOR UPDATE;
  IF v_active IS DISTINCT FROM p_run THEN
    RETURN json_build_object('status', 'not_its_turn');
  END IF;

  v_tools := CASE WHEN jsonb_typeof(v_run.queued_input->'tool_messages') = 'array' THEN v_run.queued_input->'tool_messages' ELSE '[]'::jsonb END;
  v_count := jsonb_array_length(v_tools) + CASE WHEN jsonb_typeof(v_run.queued_input->'message') = 'object' THEN 1 ELSE 0 END;
  IF v_count > 0 THEN
    UPDATE threads SET last_seq = last_seq + v_count, updated_at = now() WHERE id = v_run.thread_id RETURNING last_seq - v_count + 1 INTO v_seq;
    INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
    SELECT gen_random_uuid(), v_run.thread_id, v_seq + t.ord - 1, coalesce(t.m->>'role', 'tool'), t.m->>'message_id',
      CASE WHEN t.m ? 'role' THEN NULL ELSE p_run END, t.m->>'content', t.m->'metadata', now()
    FROM jsonb_array_elements(v_tools) WITH ORDINALITY AS t(m, ord);
    IF jsonb_typeof(v_run.queued_input->'message') = 'object' THEN
      INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
      VALUES (gen_random_uuid(), v_run.thread_id, v_seq + v_count - 1, 'user', v_run.queued_input->'message'->>'message_id', p_run,
        v_run.queued_input->'message'->>'content', v_run.queued_input->'message'->'metadata', now());
    END IF;
  END IF;

  -- Its deadline counts from now: the time it waited is not the run's time.
  UPDATE runs SET status = 'running', started_at = now(), heartbeat_at = now(), queued_input = NULL,
      deadline_at = now() + (v_run.deadline_at - v_run.created_at)
    WHERE id = p_run RETURNING dispatch_run_json(runs) INTO v_json;
  IF p_instance IS NOT NULL THEN
    INSERT INTO run_attempts (run_id, attempt, instance, started_at) VALUES (p_run, v_run.attempt, p_instance, now())
      ON CONFLICT (run_id, attempt) DO NOTHING;
  END IF;
  RETURN json_build_object('status', 'started', 'run', v_json, 'runner', v_run.runner, 'input', v_run.input,
    'generation', v_run.generation, 'attempt', v_run.attempt, 'bindingId', v_run.binding_id,
    'apiKeyHash', (SELECT k.key_hash FROM api_keys k WHERE k.id = v_run.api_key_id),
    'attachments', v_run.queued_input->'message'->'metadata'->'user_message_attachments');
END;
$$;
