-- dispatch_accept_run's checks before anything is written (p: its document), or NULL to go on.
-- A runId is looked up before the thread's lock, so a retry writes nothing: "existing" with the
-- run, or "run_id_taken" when that runId names a run of another thread. Then the plan's binding
-- ("replan" when the effective binding is not the one planned with) and the budgets ("limited",
-- dispatch_run_limits' answer).
CREATE OR REPLACE FUNCTION dispatch_accept_check(p JSONB) RETURNS JSON
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_user_id UUID := (p->>'user_id')::uuid;
  v_thread_id UUID := (p->>'thread_id')::uuid;
  v_run JSON;
  v_check JSONB := p->'binding_check';
BEGIN
  SELECT dispatch_run_json(r) INTO v_run FROM runs r WHERE r.user_id = v_user_id AND r.run_id = p->>'run_id';
  IF v_run IS NOT NULL THEN
    RETURN json_build_object('status', CASE WHEN (v_run->>'threadId')::uuid <> v_thread_id THEN 'run_id_taken' ELSE 'existing' END, 'run', v_run);
  END IF;

  IF v_check IS NOT NULL AND (
    SELECT (e.id::text, e.stamp) IS DISTINCT FROM (v_check->>'id', v_check->>'stamp')
    FROM (SELECT 1) one LEFT JOIN dispatch_effective_binding(v_user_id, v_thread_id, v_check->>'event_type') e ON true
  ) THEN
    RETURN json_build_object('status', 'replan');
  END IF;

  IF p->'limits' IS NOT NULL THEN
    RETURN dispatch_run_limits(v_user_id, (p->>'api_key_id')::uuid, p->'limits');
  END IF;
  RETURN NULL;
END;
$$;
