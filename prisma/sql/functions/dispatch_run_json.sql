-- A run as the accepting statement answers it (server/repositories/runs.ts reads it as a RunRow).
CREATE OR REPLACE FUNCTION dispatch_run_json(r runs) RETURNS JSON
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', r.id, 'runId', r.run_id, 'threadId', r.thread_id, 'userId', r.user_id, 'status', r.status,
    'protocol', r.protocol, 'runner', r.runner, 'model', r.model, 'errorCode', r.error_code, 'errorMessage', r.error_message,
    'usage', r.usage, 'createdAt', r.created_at, 'startedAt', r.started_at, 'finishedAt', r.finished_at, 'deadlineAt', r.deadline_at,
    'traceParent', r.trace_parent, 'traceState', r.trace_state)
$$;
