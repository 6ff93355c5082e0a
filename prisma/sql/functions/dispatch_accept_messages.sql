-- dispatch_accept_run's messages for a run that took the thread's turn (p: its document; p_run:
-- the run's id; p_seq: the first message's place). The seeded earlier turns or the client's
-- answers to the thread's open frontend tool calls (p.tool_messages) come first, then the new
-- user message (p.message), if any: one seq each, in that order.
-- p.fork ({message_id, keep}) forks the thread first (docs/branches.md): the current branch's
-- message with that protocol id (and, with keep, that message itself stays) and every later one
-- on the branch leave it, so what this run writes follows the fork point (dispatch_message_parent)
-- as a new branch, the old one kept. Recorded on the run (runs.fork); the thread is marked branched.
CREATE OR REPLACE FUNCTION dispatch_accept_messages(p JSONB, p_run UUID, p_seq INTEGER) RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_thread_id UUID := (p->>'thread_id')::uuid;
  v_tools JSONB := p->'tool_messages';
  v_message JSONB := p->'message';
  v_seq INTEGER := p_seq;
  v_fork_seq INTEGER;
BEGIN
  IF jsonb_typeof(p->'fork') = 'object' THEN
    SELECT m.seq INTO v_fork_seq FROM messages m
    WHERE m.thread_id = v_thread_id AND m.message_id = p->'fork'->>'message_id' AND m.on_branch ORDER BY m.seq DESC LIMIT 1;
    IF v_fork_seq IS NOT NULL THEN
      UPDATE messages SET on_branch = false WHERE thread_id = v_thread_id AND on_branch
        AND seq >= v_fork_seq + CASE WHEN (p->'fork'->>'keep')::boolean THEN 1 ELSE 0 END;
      UPDATE threads SET branched = true WHERE id = v_thread_id AND NOT branched;
      UPDATE runs SET fork = p->'fork' WHERE id = p_run;
      -- A summary of the thread that reaches past the fork point summarizes the other branch.
      DELETE FROM conversation_summaries WHERE thread_id = v_thread_id AND covers_seq >= v_fork_seq;
    END IF;
  END IF;
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
