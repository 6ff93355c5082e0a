-- Webhooks (issue #43, docs/webhooks.md): endpoints, their deliveries, and the triggers that emit
-- run and approval events in the transaction that ends the run or decides the approval.
-- The functions as sql/functions/dispatch_webhook_*.sql define them at this point (the files supersede them).

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "binding_id" UUID,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "events" TEXT[],
    "secret_sealed" TEXT NOT NULL,
    "previous_secret_sealed" TEXT,
    "previous_secret_expires_at" TIMESTAMP(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMP(3),
    "disabled_at" TIMESTAMP(3),
    "disabled_reason" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMP(3),
    "leased_by" TEXT,
    "last_attempt_at" TIMESTAMP(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_user_id_created_at_idx" ON "webhook_endpoints"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_endpoints_binding_id_idx" ON "webhook_endpoints"("binding_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_binding_id_fkey" FOREIGN KEY ("binding_id") REFERENCES "agent_bindings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One event for the webhook endpoints that want it (docs/webhooks.md), in the transaction that
-- made it happen: a delivery row per endpoint and a graphile-worker job that wakes a deliverer.
-- p: {type, user_id, binding_id, data}. An endpoint hears its owner's runs, or (binding_id set,
-- registered by an admin) every run of that binding.
CREATE OR REPLACE FUNCTION dispatch_webhook_emit(p JSONB) RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_delivery UUID;
BEGIN
  FOR v_delivery IN
    INSERT INTO webhook_deliveries (id, endpoint_id, event_type, payload)
    SELECT gen_random_uuid(), e.id, p->>'type',
      jsonb_build_object('type', p->>'type', 'timestamp', to_jsonb(now()), 'data', p->'data')
    FROM webhook_endpoints e
    WHERE e.disabled_at IS NULL AND (p->>'type') = ANY (e.events)
      AND ((e.binding_id IS NULL AND e.user_id = (p->>'user_id')::uuid)
        OR (e.binding_id IS NOT NULL AND e.binding_id = (p->>'binding_id')::uuid))
    RETURNING id
  LOOP
    PERFORM graphile_worker.add_job('dispatch_webhook_deliver', json_build_object('id', v_delivery));
  END LOOP;
END;
$$;

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

CREATE TRIGGER runs_webhooks AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (OLD.status IN ('queued', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled'))
  EXECUTE FUNCTION dispatch_webhook_run_ended();
CREATE TRIGGER approvals_webhooks AFTER UPDATE OF status ON approvals
  FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status IN ('approved', 'denied'))
  EXECUTE FUNCTION dispatch_webhook_approval_decided();
