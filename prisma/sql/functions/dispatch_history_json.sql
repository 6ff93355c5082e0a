-- A message as the /history page shows it (server/protocols/agent-api/history.ts is its schema),
-- rendered once when the message is written: messages.history_json is a stored column generated
-- with this function. It returns NULL for the messages the server renders on each read: tool
-- results, whose cards the server compiles, and user messages with attachments, whose URLs are
-- signed afresh.
--
-- to_json escapes every control character, so the raw U+0001 the page query puts where a NULL
-- was can never occur inside this text.
--
-- IMMUTABLE so it may define a generated column: to_json(text) and to_char with this numeric
-- pattern depend on no setting (created_at holds UTC wall time, as TIMESTAMP(3)).
--
-- A changed body re-renders every stored row when the migrator applies it (prisma/README.md):
-- a rewrite of the messages table.
CREATE OR REPLACE FUNCTION dispatch_history_json(p_message_id TEXT, p_seq INTEGER, p_role TEXT, p_content TEXT, p_metadata JSONB, p_created_at TIMESTAMP(3))
RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN p_role = 'assistant' OR (p_role = 'user' AND NOT p_metadata ? 'user_message_attachments') THEN
      '{"id":' || to_json(p_message_id)::text || ',"seq":' || p_seq || ',"content":' || to_json(p_content)::text
      || ',"timestamp":"' || to_char(p_created_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","role":"' || p_role || '",'
      || CASE p_role WHEN 'user' THEN '"url":null,"attachments":[]' ELSE '"uiSchema":null' END || '}'
  END
$$;
