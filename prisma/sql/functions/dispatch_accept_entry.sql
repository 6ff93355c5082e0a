-- dispatch_accept_run's entry event (p.entry: the event this run answers), recorded once per id
-- and numbered per conversation (threads.last_event_seq).
CREATE OR REPLACE FUNCTION dispatch_accept_entry(p JSONB) RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_thread_id UUID := (p->>'thread_id')::uuid;
  v_entry JSONB := p->'entry';
  v_event_seq INTEGER;
BEGIN
  IF v_entry IS NULL OR EXISTS (SELECT 1 FROM agent_events WHERE id = v_entry->>'id') THEN
    RETURN;
  END IF;
  UPDATE threads SET last_event_seq = last_event_seq + 1 WHERE id = v_thread_id RETURNING last_event_seq INTO v_event_seq;
  INSERT INTO agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
  VALUES (v_entry->>'id', v_thread_id, (p->>'user_id')::uuid, v_event_seq, v_entry->>'event_type', v_entry->>'source',
    v_entry->>'source_event_type', coalesce(v_entry->'data', '{}'::jsonb), v_entry->'raw_ref');
END;
$$;
