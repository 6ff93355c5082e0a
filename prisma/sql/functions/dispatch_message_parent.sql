-- The trigger on messages (migration 20261207160202_message_branches) that links a new message of
-- the thread's current branch to the one it follows: the branch's newest message before it. A
-- thread is a tree of messages (docs/branches.md); every writer (a run's accept, its answers, a
-- queued run's start, a copied thread) gets the link without naming it. A fork marks the old
-- branch's tail off the branch first (dispatch_accept_messages), so the new message follows the
-- fork point. One ordered probe of messages(thread_id, seq); a message given its parent, or
-- written off the branch (a copy of another branch), keeps what it was given.
CREATE OR REPLACE FUNCTION dispatch_message_parent() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NEW.parent_id IS NULL AND NEW.on_branch THEN
    NEW.parent_id := (SELECT m.id FROM messages m WHERE m.thread_id = NEW.thread_id AND m.seq < NEW.seq AND m.on_branch
                      ORDER BY m.seq DESC LIMIT 1);
  END IF;
  RETURN NEW;
END;
$$;
