-- The threads REST API (docs/threads.md): a thread's own labels, and full-text search over messages.

-- The owner's metadata (a small flat JSON object) and tags, filterable when listing. Lists are
-- filtered within one user's threads (threads_user_id_updated_at_idx), so they need no index.
ALTER TABLE "threads" ADD COLUMN "metadata" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- The words a message is found by (prisma/sql/functions/dispatch_search_text.sql says how Chinese
-- is split). Created here as it is at this point; the function's file is its definition from now on.
CREATE FUNCTION dispatch_search_text(p_content TEXT)
RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(p_content, '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])', E'\x01\\1\x01', 'g')
$$;

-- Stored, so existing rows are indexed by this statement (it rewrites the table once) and every
-- later INSERT or UPDATE indexes its row; nothing else writes it.
ALTER TABLE "messages" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, dispatch_search_text("content"))) STORED;

CREATE INDEX "messages_search_vector_idx" ON "messages" USING GIN ("search_vector");
