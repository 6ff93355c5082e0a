-- The binding that answers an event: the narrowest enabled one (thread, then user, then default)
-- whose runner is available; the newest wins within a scope (then the greatest id). `stamp`
-- changes whenever the binding does, so a plan made from a cached copy can be checked
-- (dispatch_accept_run's p_binding_check).
CREATE OR REPLACE FUNCTION dispatch_effective_binding(p_user_id UUID, p_thread_id UUID, p_event_type TEXT)
RETURNS TABLE (id UUID, stamp TEXT)
LANGUAGE sql STABLE AS $$
  SELECT b.id, b.updated_at::text FROM agent_bindings b JOIN agent_runners r ON r.id = b.runner_id
  WHERE b.enabled AND r.available AND p_event_type = ANY(b.event_types)
    AND ((b.scope = 'thread' AND b.thread_id = p_thread_id) OR (b.scope = 'user' AND b.user_id = p_user_id) OR b.scope = 'default')
  ORDER BY CASE b.scope WHEN 'thread' THEN 0 WHEN 'user' THEN 1 ELSE 2 END, b.created_at DESC, b.id DESC
  LIMIT 1
$$;
