-- dispatch_accept_run's entry event (p.entry: the event this run answers), recorded once per id
-- and numbered per conversation (threads.last_event_seq). A thread this accept created
-- (p_new_thread) was inserted with last_event_seq 1 already (dispatch_accept_thread): its entry is
-- event 1, with no second write of the row it just inserted (an update of a row inserted in the
-- same transaction also checks its foreign keys again).
CREATE OR REPLACE FUNCTION dispatch_accept_entry(p JSONB, p_new_thread BOOLEAN) RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_thread_id UUID := (p->>'thread_id')::uuid;
  v_entry JSONB := p->'entry';
  v_event_seq INTEGER := 1;
BEGIN
  IF v_entry IS NULL THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM agent_events WHERE id = v_entry->>'id') THEN
    IF p_new_thread THEN
      UPDATE threads SET last_event_seq = 0 WHERE id = v_thread_id;
    END IF;
    RETURN;
  END IF;
  IF NOT p_new_thread THEN
    UPDATE threads SET last_event_seq = last_event_seq + 1 WHERE id = v_thread_id RETURNING last_event_seq INTO v_event_seq;
  END IF;
  INSERT INTO agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
  VALUES (v_entry->>'id', v_thread_id, (p->>'user_id')::uuid, v_event_seq, v_entry->>'event_type', v_entry->>'source',
    v_entry->>'source_event_type', coalesce(v_entry->'data', '{}'::jsonb), v_entry->'raw_ref');
END;
$$;
