-- A message's text as full-text search indexes it: messages.search_vector is
-- to_tsvector('simple', dispatch_search_text(content)), a stored generated column.
--
-- Messages are English and Chinese. The 'simple' configuration lowercases words and neither stems
-- nor drops stop words, so it treats every language alike; but its parser takes a run of Chinese
-- characters (no spaces between words) as one word, which no query would match. So each CJK
-- character (ideographs, kana) is set apart by U+0001 on both sides: the parser takes U+0001 as a
-- separator, every character becomes a word, and a query's Chinese words are matched as phrases
-- of consecutive characters (server/repositories/thread-search.ts). U+0001 never shows: snippets
-- are cut from this same text and have it removed.
--
-- IMMUTABLE so it may define a generated column: regexp_replace with a constant pattern depends on no setting.
--
-- A changed body re-computes every stored row when the migrator applies it (prisma/README.md):
-- a rewrite of the messages table.
CREATE OR REPLACE FUNCTION dispatch_search_text(p_content TEXT)
RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(p_content, '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])', E'\x01\\1\x01', 'g')
$$;
