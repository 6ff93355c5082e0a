-- dispatch_accept_run's run row (p: its document; p_run: its id), answered as dispatch_run_json.
-- A run started here (p.start) is running, with its first attempt (run_attempts: p.instance) and
-- its opening events as its log's first batch, in this transaction: its executor's first
-- event-log write is not needed before a client's first event. The batch carries the run's
-- created_at (run_created_at, the log's partition key), as every write to the log does.
-- A waiting run (p_waiting, the enqueue policy on a busy thread) is recorded "queued" with its
-- messages kept in runs.queued_input rather than added to the thread (they go in when it starts,
-- after the answer of the run before it), and its graphile-worker job is added parked (run_at
-- infinity, job_key = the run's id): dispatch_run_ended makes it due when its turn comes,
-- dispatch_start_queued_run starts it. p.deadline_at is an instant (ISO 8601), stored as UTC like
-- every timestamp column.
CREATE OR REPLACE FUNCTION dispatch_accept_insert_run(p JSONB, p_run UUID, p_waiting BOOLEAN) RETURNS JSON
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_started BOOLEAN := coalesce((p->>'start')::boolean, false) AND NOT p_waiting;
  v_run JSON;
  v_created_at TIMESTAMP(3);
BEGIN
  INSERT INTO runs (id, run_id, thread_id, user_id, status, protocol, runner, input, deadline_at, started_at, heartbeat_at, binding_id, "authorization", event_id, api_key_id, generation, queued_input, trace_parent, trace_state, reserved_tokens)
  VALUES (p_run, p->>'run_id', (p->>'thread_id')::uuid, (p->>'user_id')::uuid,
    CASE WHEN v_started THEN 'running'::"RunStatus" ELSE 'queued'::"RunStatus" END,
    p->>'protocol', p->>'runner', p->'input', ((p->>'deadline_at')::timestamptz AT TIME ZONE 'UTC')::timestamp(3), CASE WHEN v_started THEN now() END, CASE WHEN NOT p_waiting THEN now() END,
    (p->>'binding_id')::uuid, p->'authorization', p->'entry'->>'id', (p->>'api_key_id')::uuid, p->'generation',
    CASE WHEN p_waiting THEN jsonb_build_object('message', p->'message', 'tool_messages', p->'tool_messages') END,
    p->>'trace_parent', p->>'trace_state', (p->>'reserved_tokens')::bigint)
  RETURNING dispatch_run_json(runs), created_at INTO v_run, v_created_at;

  IF v_started AND p->>'instance' IS NOT NULL THEN
    INSERT INTO run_attempts (run_id, attempt, instance, started_at) VALUES (p_run, 1, p->>'instance', now());
  END IF;
  IF v_started AND p->>'opening_events' IS NOT NULL THEN
    INSERT INTO run_event_batches (run_id, first_seq, last_seq, types, events, created_at, run_created_at)
    VALUES (p_run, 1, cardinality(string_to_array(p->>'opening_types', ' ')), p->>'opening_types', p->>'opening_events', now(), v_created_at);
  END IF;
  IF p_waiting THEN
    PERFORM graphile_worker.add_job('dispatch_start_run', json_build_object('id', p_run), run_at := 'infinity', job_key := p_run::text);
  END IF;
  RETURN v_run;
END;
$$;
