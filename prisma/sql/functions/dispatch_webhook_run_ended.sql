-- The trigger on runs (migration 20261207130611_webhooks) when a run ends, on whatever path: its
-- webhook event. A run that ended waiting for approvals (RUN_FINISHED's interrupt outcome, status
-- completed) is run.interrupted, with the approvals it waits for.
CREATE OR REPLACE FUNCTION dispatch_webhook_run_ended() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_type TEXT := 'run.' || NEW.status::text;
  v_waiting JSONB;
BEGIN
  -- Most runs have nobody listening: then this is one indexed probe.
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.disabled_at IS NULL
                 AND ((e.binding_id IS NULL AND e.user_id = NEW.user_id) OR e.binding_id = NEW.binding_id)) THEN
    RETURN NULL;
  END IF;
  IF NEW.status = 'completed' THEN
    SELECT jsonb_agg(jsonb_build_object('id', a.id, 'action', a.action, 'toolCallId', a.tool_call_id, 'expiresAt', a.expires_at) ORDER BY a.created_at)
      INTO v_waiting FROM approvals a WHERE a.run_id = NEW.id AND a.status = 'pending';
    IF v_waiting IS NOT NULL THEN
      v_type := 'run.interrupted';
    END IF;
  END IF;
  PERFORM dispatch_webhook_emit(jsonb_build_object(
    'type', v_type, 'user_id', NEW.user_id, 'binding_id', NEW.binding_id,
    'data', jsonb_build_object(
      'run', jsonb_build_object('id', NEW.id, 'runId', NEW.run_id, 'threadId', NEW.thread_id, 'status', NEW.status,
        'errorCode', NEW.error_code, 'errorMessage', NEW.error_message, 'createdAt', NEW.created_at, 'finishedAt', NEW.finished_at,
        'url', '/api/v1/agent/runs/' || NEW.id, 'eventsUrl', '/api/v1/agent/runs/' || NEW.id || '/events'))
      || CASE WHEN v_waiting IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('approvals', v_waiting) END));
  RETURN NULL;
END;
$$;
