// A new thread's title, made from its first message before any answer exists: a short summary
// rather than the first 80 characters. Deterministic (no model call): a greeting that only opens
// the message goes, so do "please" and "can you …" before a request, only the first sentence
// stays, and a long one is cut at a word (for Chinese, at a character) with an ellipsis.

const MAX = 60;
const MAX_CJK = 24;
const GREETING = /^(hi|hello|hey|hiya|good (morning|afternoon|evening)|你好|您好|嗨)( there)?[\s,!.，！。]*/i;
const POLITE = /^(please|pls|kindly|can you|could you|would you|will you|can u|i want you to|i'd like you to|i need you to|请你|请问|麻烦你)[\s,，]*(please[\s,]+)?/i;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;

/** The first sentence of `text`, ending punctuation kept for a question. */
function firstSentence(text: string): string {
  const match = /^(.+?[.!?。！？])(\s|(?=[\u3400-\u9fff])|$)/.exec(text);
  return match ? match[1]! : text;
}

function shorten(text: string): string {
  const limit = CJK.test(text) ? MAX_CJK : MAX;
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit - 1);
  const atWord = cut.lastIndexOf(" ");
  return `${(atWord > limit / 2 ? cut.slice(0, atWord) : cut).replace(/[\s,;:，、-]+$/, "")}…`;
}

/** The default title of a thread whose first user message is `text`. */
export function defaultTitle(text: string): string {
  let line = text.replace(/[`*_#>]+/g, " ").replace(/\s+/g, " ").trim();
  if (!line) return "New chat";
  const withoutGreeting = line.replace(GREETING, "");
  if (withoutGreeting.length > 0) line = withoutGreeting;
  const request = line.replace(POLITE, "");
  if (request !== line && request.length > 0) line = request.charAt(0).toUpperCase() + request.slice(1);
  line = firstSentence(line).replace(/[.。]$/, "");
  return shorten(line) || "New chat";
}
