-- dispatch_accept_run's messages for a run that took the thread's turn (p: its document; p_run:
-- the run's id; p_seq: the first message's place). The seeded earlier turns or the client's
-- answers to the thread's open frontend tool calls (p.tool_messages) come first, then the new
-- user message (p.message), if any: one seq each, in that order.
CREATE OR REPLACE FUNCTION dispatch_accept_messages(p JSONB, p_run UUID, p_seq INTEGER) RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_thread_id UUID := (p->>'thread_id')::uuid;
  v_tools JSONB := p->'tool_messages';
  v_message JSONB := p->'message';
  v_seq INTEGER := p_seq;
BEGIN
  IF v_tools IS NOT NULL AND jsonb_array_length(v_tools) > 0 THEN
    INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
    SELECT gen_random_uuid(), v_thread_id, v_seq + t.ord - 1, coalesce(t.m->>'role', 'tool'), t.m->>'message_id',
      CASE WHEN t.m ? 'role' THEN NULL ELSE p_run END, t.m->>'content', t.m->'metadata', now()
    FROM jsonb_array_elements(v_tools) WITH ORDINALITY AS t(m, ord);
    v_seq := v_seq + jsonb_array_length(v_tools);
    UPDATE threads SET last_seq = v_seq - CASE WHEN v_message IS NULL THEN 1 ELSE 0 END WHERE id = v_thread_id;
  END IF;
  IF v_message IS NOT NULL THEN
    INSERT INTO messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
    VALUES (gen_random_uuid(), v_thread_id, v_seq, 'user', v_message->>'message_id', p_run, v_message->>'content', v_message->'metadata', now());
  END IF;
END;
$$;
