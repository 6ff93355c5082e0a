-- A message as the history page shows it, rendered once when it is written instead of on every
-- read: a day's page (~900 messages on a busy thread) is then ~15 rows of concatenated texts,
-- not 900 rows for the server to parse, rebuild and serialize. On the benchmark's 1M-message
-- thread (2 cores) the server's CPU per page fell from ~4.5-5 ms to ~2.5 ms; the database's work
-- per page stayed about the same, and rendering costs it ~5 µs per message written. The price is
-- space: the text repeats the content, so the benchmark's 1M messages take 549 MB with indexes
-- instead of ~340 MB.
-- server/services/history.ts renders the messages this leaves NULL: tool results, whose cards the
-- server compiles, and user messages with attachments, whose URLs are signed afresh on each read.
--
-- The text must stay byte for byte what JSON.stringify gives for the message server/services/
-- history.ts builds from the same row (its integration test compares them); a change to either
-- is a new migration. to_json escapes every control character, so the raw U+0001 the page query
-- puts where a NULL was can never occur inside this text.
--
-- IMMUTABLE so it may define a generated column: to_json(text) and to_char with this numeric
-- pattern depend on no setting (created_at holds UTC wall time, as TIMESTAMP(3)).
CREATE FUNCTION dispatch_history_json(p_message_id TEXT, p_seq INTEGER, p_role TEXT, p_content TEXT, p_metadata JSONB, p_created_at TIMESTAMP(3))
RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN p_role = 'assistant' OR (p_role = 'user' AND NOT p_metadata ? 'user_message_attachments') THEN
      '{"id":' || to_json(p_message_id)::text || ',"seq":' || p_seq || ',"content":' || to_json(p_content)::text
      || ',"timestamp":"' || to_char(p_created_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","role":"' || p_role || '",'
      || CASE p_role WHEN 'user' THEN '"url":null,"attachments":[]' ELSE '"uiSchema":null' END || '}'
  END
$$;

-- Stored, so existing rows are rendered by this statement (it rewrites the table once) and every
-- later INSERT or UPDATE renders its row; nothing else writes it.
ALTER TABLE "messages" ADD COLUMN "history_json" TEXT GENERATED ALWAYS AS (dispatch_history_json("message_id", "seq", "role", "content", "metadata", "created_at")) STORED;
