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
