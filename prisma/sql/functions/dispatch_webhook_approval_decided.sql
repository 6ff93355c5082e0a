-- The trigger on approvals (migration 20261207130611_webhooks) when a person (or an admin for
-- them) approves or denies a request: approval.decided, linking to the run that asked.
CREATE OR REPLACE FUNCTION dispatch_webhook_approval_decided() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_binding UUID;
BEGIN
  SELECT r.binding_id INTO v_binding FROM runs r WHERE r.id = NEW.run_id;
  PERFORM dispatch_webhook_emit(jsonb_build_object(
    'type', 'approval.decided', 'user_id', NEW.user_id, 'binding_id', v_binding,
    'data', jsonb_build_object(
      'approval', jsonb_build_object('id', NEW.id, 'action', NEW.action, 'toolCallId', NEW.tool_call_id, 'status', NEW.status,
        'decidedAt', NEW.decided_at, 'decidedAsAdmin', NEW.decided_as_admin, 'reason', NEW.reason),
      'run', jsonb_build_object('id', NEW.run_id, 'threadId', NEW.thread_id,
        'url', '/api/v1/agent/runs/' || NEW.run_id, 'eventsUrl', '/api/v1/agent/runs/' || NEW.run_id || '/events'))));
  RETURN NULL;
END;
$$;
