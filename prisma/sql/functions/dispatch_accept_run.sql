-- Accepting a run in one round trip: the thread is created or locked, the run, its messages and
-- its entry event are written, or nothing is when the runId was seen, the thread belongs to
-- someone else or has a run in progress. Each statement of a volatile PL/pgSQL function takes a
-- fresh snapshot, so the checks after the thread lock see what the previous holder of that lock
-- committed. Its named parts, one file each: dispatch_accept_check (what answers before anything
-- is written), dispatch_accept_thread (the thread's lock and turn), dispatch_accept_insert_run
-- (the run, its first attempt and opening events, its queue job), dispatch_accept_messages and
-- dispatch_accept_entry.
--
-- One argument, a jsonb document, rather than ~30 positional parameters or a composite type: the
-- caller names every field (a swapped pair of same-typed parameters can no longer go unnoticed),
-- an absent key is the default, and a new field changes this file and its caller only, where a
-- composite type would need a migration (ALTER TYPE) beside every change of the file. Its keys:
--   user_id, thread_id, title, run_id, protocol, runner, input, deadline_at, binding_id,
--   authorization, start (boolean);
--   message: {message_id, content, metadata}, the run's user message (absent: a run that only
--     brings the client's answers to the thread's open frontend tool calls);
--   tool_messages: [{message_id, content, metadata, role?}], those answers, stored as the thread's
--     tool messages of this run before the user message; an element with a "role" is an earlier
--     turn a client brought to seed a new thread (the Agent API's new session): stored with that
--     role and no run, so it is history the run's context reads like any other;
--   entry: the entry event this run answers ({id, event_type, source, source_event_type, data, raw_ref});
--   history_limit, memory_limit: with history_limit > 0 a created run also gets what the built-in
--     agent starts from (dispatch_agent_context), read in the same round trip;
--   binding_check: a plan made from a cached copy of the bindings ({id, stamp, event_type}); when
--     the effective binding is no longer the one planned with, nothing is written ("replan");
--   api_key_id, limits: the environment's default budgets (dispatch_run_limits); a new run that
--     would exceed a budget of the user's or of the key's writes nothing and answers "limited";
--   reserved_tokens: the run's estimated tokens, recorded on the run (runs.reserved_tokens) in the
--     transaction whose budget check holds the user's lock, so the next accept's check counts
--     them; the run's end releases them;
--   generation: the sampling parameters, kept for an executor that takes the run over;
--   instance: the instance that executes a run started here, recorded as its first attempt;
--   opening_types, opening_events: a started run's opening events (RUN_STARTED, the client's
--     state) as its event log's first batch (seq 1..n); other instances hear of them with the
--     executor's next write (nothing here notifies);
--   trace_parent, trace_state: the run's W3C trace context, for whichever instance executes it;
--   enqueue: on a busy thread the run is recorded as "queued" instead of refused (see
--     dispatch_accept_thread and dispatch_accept_insert_run).
-- Returns {"status": "created" | "queued" | "existing" | "not_found" | "busy" | "replan" | "run_id_taken" | "limited",
--          "run": {...}, "busy_run_id": "...", "position": n, "context": what dispatch_agent_context answers}.
CREATE OR REPLACE FUNCTION dispatch_accept_run(p JSONB) RETURNS JSON
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_answer JSON;
  v_run_uuid UUID := gen_random_uuid();
  v_thread RECORD;
  v_run JSON;
  v_context JSON;
BEGIN
  v_answer := dispatch_accept_check(p);
  IF v_answer IS NOT NULL THEN
    RETURN v_answer;
  END IF;

  v_thread := dispatch_accept_thread(p, v_run_uuid);
  IF v_thread.answer IS NOT NULL THEN
    RETURN v_thread.answer;
  END IF;

  v_run := dispatch_accept_insert_run(p, v_run_uuid, v_thread.waiting);
  IF NOT v_thread.waiting THEN
    PERFORM dispatch_accept_messages(p, v_run_uuid, v_thread.seq);
  END IF;
  PERFORM dispatch_accept_entry(p, v_thread.is_new);

  IF v_thread.waiting THEN
    RETURN json_build_object('status', 'queued', 'run', v_run, 'position',
      (SELECT count(*) FROM runs r WHERE r.status = 'queued' AND r.thread_id = (p->>'thread_id')::uuid AND r.queued_input IS NOT NULL));
  END IF;
  IF coalesce((p->>'history_limit')::int, 0) > 0 THEN
    v_context := dispatch_agent_context((p->>'thread_id')::uuid, v_run_uuid, (p->>'user_id')::uuid,
      CASE WHEN v_thread.is_new AND p->'tool_messages' IS NULL THEN 0 ELSE (p->>'history_limit')::int END,
      coalesce((p->>'memory_limit')::int, 0));
  END IF;
  RETURN json_build_object('status', 'created', 'run', v_run, 'context', v_context);
END;
$$;
