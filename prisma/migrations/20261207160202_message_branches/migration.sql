-- Branches (issue #40, docs/branches.md): a thread is a tree of messages with a current branch.
-- messages.parent_id links each message to the one it follows on its branch; messages.on_branch
-- says which are on the current branch (history, the model and snapshots read only those);
-- threads.branched says the thread ever forked; runs.fork records how a run forked its thread.
-- dispatch_accept_messages (sql/functions/dispatch_accept_messages.sql) now forks the thread when
-- its document says so; dispatch_agent_context reads the current branch only.
-- dispatch_message_parent as sql/functions/dispatch_message_parent.sql defines it at this point.

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "on_branch" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "parent_id" UUID;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "fork" JSONB;

-- AlterTable
ALTER TABLE "threads" ADD COLUMN     "branched" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "messages_parent_id_idx" ON "messages"("parent_id");

-- Existing threads are one branch each: every message follows the one before it.
UPDATE "messages" m SET "parent_id" = p.prev
FROM (SELECT id, lag(id) OVER (PARTITION BY thread_id ORDER BY seq) AS prev FROM "messages") p
WHERE p.id = m.id AND p.prev IS NOT NULL;

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

CREATE TRIGGER messages_parent BEFORE INSERT ON messages
  FOR EACH ROW EXECUTE FUNCTION dispatch_message_parent();
