// Text preparation shared by indexing and querying, so both sides see the same tokens.
//
// PostgreSQL's parser has no word segmentation for Chinese or Japanese: a run of Han or kana
// characters becomes a single token, so a query word would only match an identical run. We
// rewrite each such run into overlapping character bigrams ("知识库" -> "知识 识库") before
// to_tsvector / websearch_to_tsquery, which makes any two-character word inside a run
// searchable, keeps phrase order for ts_rank_cd's cover density, and needs no extension.

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
// Letters with their combining marks, and digits: the characters PostgreSQL's parser keeps in words.
const TERM = /[\p{L}\p{M}\p{N}]+/gu;

/** Most distinct terms the loose (any-term) query keeps; a pasted paragraph is not a query. */
export const MAX_LOOSE_TERMS = 32;
// Shorter terms match too much as prefixes ("on:*", "dat:*"); they still match whole.
const MIN_PREFIX_TERM_LENGTH = 4;

export function isCjk(ch: string | undefined): boolean {
  return ch !== undefined && CJK_CHAR.test(ch);
}

/** The text as to_tsvector / websearch_to_tsquery should see it: NFC, CJK runs as bigrams. */
export function segmentForSearch(text: string): string {
  return text.normalize("NFC").replace(CJK_RUN, (run) => {
    const chars = Array.from(run);
    if (chars.length === 1) return ` ${run} `;
    const grams: string[] = [];
    for (let i = 0; i < chars.length - 1; i++) grams.push(chars[i]! + chars[i + 1]!);
    return ` ${grams.join(" ")} `;
  });
}

/**
 * The any-term fallback as to_tsquery text: `'term' | 'longer':* | ...`, lower-cased and
 * de-duplicated; "" when the query has no word at all. Terms hold only letters, marks and
 * digits, so quoting them cannot break the tsquery syntax.
 */
export function looseQueryText(query: string): string {
  const terms = new Set<string>();
  for (const match of segmentForSearch(query).toLowerCase().matchAll(TERM)) {
    terms.add(match[0]);
    if (terms.size >= MAX_LOOSE_TERMS) break;
  }
  return [...terms]
    .map((t) => (Array.from(t).length >= MIN_PREFIX_TERM_LENGTH || isCjk(t[0]) ? `'${t}':*` : `'${t}'`))
    .join(" | ");
}
