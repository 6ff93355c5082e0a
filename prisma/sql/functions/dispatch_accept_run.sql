-- Accepting a run in one round trip: the thread is created or locked, the run, its messages and
-- its entry event are written, or nothing is when the runId was seen, the thread belongs to
-- someone else or has a run in progress. Each statement of a volatile PL/pgSQL function takes a
-- fresh snapshot, so the checks after the thread lock see what the previous holder of that lock
-- committed. A runId is looked up before the lock (a retry writes nothing) and, for a thread
-- that exists, again as the run in progress: a duplicate that waited for the lock while the
-- first one was accepted is that same run, not a busy thread. Two duplicates that both get past
-- this insert the same (user_id, run_id), and the caller answers the loser's unique violation
-- with the winner's run. A runId names a run of one thread: the same runId on another thread is
-- "run_id_taken".
--
-- threads.active_run_id names the thread's newest run, written here under the thread's lock
-- (this is the only statement that creates runs): the thread is busy exactly when that run is
-- queued or running, one primary-key read. A thread whose runs all predate the column (NULL) is
-- checked by scanning its runs once.
--
-- A run may bring no user message (p_message_id NULL) and the client's answers to the thread's
-- open frontend tool calls (p_tool_messages: [{message_id, content, metadata}]), stored as the
-- thread's tool messages of this run before the user message. An element with a "role" is an
-- earlier turn a client brought to seed a new thread (the Agent API's new session): stored with
-- that role and no run, so it is history the run's context reads like any other.
-- With p_history_limit > 0 a created run also gets what the built-in agent starts from (see
-- dispatch_agent_context), read in the same round trip.
-- p_binding_check (a plan made from a cached copy of the bindings): when the effective binding
-- is no longer the one planned with (id and stamp), nothing is written and the status is "replan".
-- p_limits (the environment's default budgets, see dispatch_run_limits): a new run that would exceed
-- a budget of the user's or of p_api_key_id's writes nothing and answers that function's "limited".
-- p_reserved_tokens (the token reservation): the run's estimated tokens, recorded on the run it
-- creates (runs.reserved_tokens) in the transaction whose dispatch_run_limits check holds the
-- user's lock, so the next accept's check counts them; the run's end releases them.
-- p_generation: the sampling parameters, kept for an executor that takes the run over.
-- p_instance: the instance that executes a run started here (p_start), recorded as the run's
-- first attempt (run_attempts) in this transaction rather than by a statement of its executor.
-- p_opening_types / p_opening_events: a run started here (p_start) gets its opening events (RUN_STARTED,
-- and the client's state) as its event log's first batch (seq 1..n, run_event_batches' columns), in
-- this transaction: its executor's first event-log write is not needed before a client's first event.
-- Other instances hear of them with the executor's next write (nothing here notifies).
-- p_trace_parent / p_trace_state: the run's W3C trace context, kept for whichever instance executes it.
-- p_enqueue (the enqueue policy): on a busy thread the run is recorded as "queued" instead of
-- refused, its messages kept in runs.queued_input rather than added to the thread (they go in when
-- it starts, after the answer of the run before it), and its graphile-worker job is added parked
-- (run_at infinity, job_key = the run's id): dispatch_run_ended makes it due when its turn comes,
-- dispatch_start_queued_run starts it. threads.active_run_id keeps naming the run that holds the
-- turn. The answer is "queued" with the run's place among the thread's waiting runs (1: next).
-- Returns {"status": "created" | "queued" | "existing" | "not_found" | "busy" | "replan" | "run_id_taken" | "limited",
--          "run": {...}, "busy_run_id": "...", "position": n, "context": what dispatch_agent_context answers}.
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
  p_binding_check JSONB,
  p_tool_messages JSONB,
  p_api_key_id UUID DEFAULT NULL,
  p_limits JSONB DEFAULT NULL,
  p_generation JSONB DEFAULT NULL,
  p_enqueue BOOLEAN DEFAULT false,
  p_instance TEXT DEFAULT NULL,
  p_opening_types TEXT DEFAULT NULL,
  p_opening_events TEXT DEFAULT NULL,
  p_trace_parent TEXT DEFAULT NULL,
  p_trace_state TEXT DEFAULT NULL,
  p_reserved_tokens BIGINT DEFAULT NULL
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
  v_refusal JSON;
  v_waiting BOOLEAN := false;
  v_position INTEGER;
BEGIN
  SELECT dispatch_run_json(r) INTO v_run FROM runs r WHERE r.user_id = p_user_id AND r.run_id = p_run_id;
  IF v_run IS NOT NULL THEN
    IF (v_run->>'threadId')::uuid <> p_thread_id THEN
      RETURN json_build_object('status', 'run_id_taken', 'run', v_run);
    END IF;
    RETURN json_build_object('status', 'existing', 'run', v_run);
  END IF;

  IF p_binding_check IS NOT NULL AND (
    SELECT (e.id::text, e.stamp) IS DISTINCT FROM (p_binding_check->>'id', p_binding_check->>'stamp')
    FROM (SELECT 1) one LEFT JOIN dispatch_effective_binding(p_user_id, p_thread_id, p_binding_check->>'event_type') e ON true
  ) THEN
    RETURN json_build_object('status', 'replan');
  END IF;

  IF p_limits IS NOT NULL THEN
    v_refusal := dispatch_run_limits(p_user_id, p_api_key_id, p_limits);
    IF v_refusal IS NOT NULL THEN
      RETURN v_refusal;
    END IF;
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
    ELSIF v_busy IS NOT NULL AND NOT p_enqueue THEN
      RETURN json_build_object('status', 'busy', 'busy_run_id', v_busy);
    END IF;
    v_waiting := v_busy IS NOT NULL;
    IF NOT v_waiting THEN
      UPDATE threads SET last_seq = last_seq + 1, updated_at = now(), active_run_id = v_run_uuid WHERE id = p_thread_id RETURNING last_seq INTO v_seq;
    END IF;
  END IF;

  INSERT INTO runs (id, run_id, thread_id, user_id, status, protocol, runner, input, deadline_at, started_at, heartbeat_at, binding_id, "authorization", event_id, api_key_id, generation, queued_input, trace_parent, trace_state, reserved_tokens)
  VALUES (v_run_uuid, p_run_id, p_thread_id, p_user_id,
    CASE WHEN p_start AND NOT v_waiting THEN 'running'::"RunStatus" ELSE 'queued'::"RunStatus" END,
    p_protocol, p_runner, p_input, p_deadline_at, CASE WHEN p_start AND NOT v_waiting THEN now() END, CASE WHEN NOT v_waiting THEN now() END,
    p_binding_id, p_authorization, p_entry->>'id', p_api_key_id, p_generation,
    CASE WHEN v_waiting THEN jsonb_build_object(
      'message', CASE WHEN p_message_id IS NOT NULL THEN jsonb_build_object('message_id', p_message_id, 'content', p_content, 'metadata', p_message_metadata) END,
      'tool_messages', p_tool_messages) END,
    p_trace_parent, p_trace_state, p_reserved_tokens)
  RETURNING dispatch_run_json(runs) INTO v_run;

  IF p_start AND NOT v_waiting AND p_instance IS NOT NULL THEN
    INSERT INTO run_attempts (run_id, attempt, instance, started_at) VALUES (v_run_uuid, 1, p_instance, now());
  END IF;
  IF p_start AND NOT v_waiting AND p_opening_events IS NOT NULL THEN
    INSERT INTO run_event_batches (run_id, first_seq, last_seq, types, events, created_at)
    VALUES (v_run_uuid, 1, cardinality(string_to_array(p_opening_types, ' ')), p_opening_types, p_opening_events, now());
  END IF;

  IF v_waiting THEN
    PERFORM graphile_worker.add_job('dispatch_start_run', json_build_object('id', v_run_uuid), run_at := 'infinity', job_key := v_run_uuid::text);
    SELECT count(*) INTO v_position FROM runs r WHERE r.status = 'queued' AND r.thread_id = p_thread_id AND r.queued_input IS NOT NULL;
  END IF;

  -- The seeded earlier turns or the client's answers to the thread's open frontend tool calls come
  -- first, then its new user message, if any: one seq each, in that order.
  IF p_tool_messages IS NOT NULL AND jsonb_array_length(p_tool_messages) > 0 AND NOT v_waiting THEN
    INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
    SELECT gen_random_uuid(), p_thread_id, v_seq + t.ord - 1, coalesce(t.m->>'role', 'tool'), t.m->>'message_id',
      CASE WHEN t.m ? 'role' THEN NULL ELSE v_run_uuid END, t.m->>'content', t.m->'metadata', now()
    FROM jsonb_array_elements(p_tool_messages) WITH ORDINALITY AS t(m, ord);
    v_seq := v_seq + jsonb_array_length(p_tool_messages);
    UPDATE threads SET last_seq = v_seq - CASE WHEN p_message_id IS NULL THEN 1 ELSE 0 END WHERE id = p_thread_id;
  END IF;
  IF p_message_id IS NOT NULL AND NOT v_waiting THEN
    INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
    VALUES (gen_random_uuid(), p_thread_id, v_seq, 'user', p_message_id, v_run_uuid, p_content, p_message_metadata, now());
  END IF;

  -- The entry event this run answers: recorded once per id, numbered per conversation.
  IF p_entry IS NOT NULL AND NOT EXISTS (SELECT 1 FROM agent_events WHERE id = p_entry->>'id') THEN
    UPDATE threads SET last_event_seq = last_event_seq + 1 WHERE id = p_thread_id RETURNING last_event_seq INTO v_event_seq;
    INSERT INTO agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
    VALUES (p_entry->>'id', p_thread_id, p_user_id, v_event_seq, p_entry->>'event_type', p_entry->>'source',
      p_entry->>'source_event_type', coalesce(p_entry->'data', '{}'::jsonb), p_entry->'raw_ref');
  END IF;

  IF v_waiting THEN
    RETURN json_build_object('status', 'queued', 'run', v_run, 'position', v_position);
  END IF;
  IF p_history_limit > 0 THEN
    v_context := dispatch_agent_context(p_thread_id, v_run_uuid, p_user_id, CASE WHEN v_new AND p_tool_messages IS NULL THEN 0 ELSE p_history_limit END, p_memory_limit);
  END IF;
  RETURN json_build_object('status', 'created', 'run', v_run, 'context', v_context);
END;
$$;
