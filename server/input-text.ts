// Text a request carries that nothing downstream can take: bytes that are not UTF-8, JSON nested
// deeper than any protocol needs (a recursive walk over it overflows the stack), and strings
// PostgreSQL refuses (a NUL character, a lone UTF-16 surrogate). Each edge refuses these once,
// before parsing work grows, with a message that names what is wrong and where. Pure, so the
// runner host's body reader uses it as well as the HTTP body readers.

import { issuePath } from "./kernel/input-issues";

/** Deeper than any document the protocols define (messages, tool arguments, state, uiSchema). */
export const MAX_JSON_DEPTH = 64;

export type TextRefusal = { message: string; field?: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body as text, or null when its bytes are not valid UTF-8 (never silently replaced). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

export const NOT_UTF8: TextRefusal = { message: "The request body is not valid UTF-8" };

// A high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string PostgreSQL would refuse, or null. */
export function stringProblem(value: string): string | null {
  if (value.includes("\0")) return "contains a NUL character (\\u0000), which is not accepted";
  if (LONE_SURROGATE.test(value)) return "contains a lone UTF-16 surrogate (invalid Unicode), which is not accepted";
  return null;
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

function escapedUnit(text: string, at: number): number | null {
  // `at` is the backslash of a `\uXXXX` escape.
  if (text.charCodeAt(at + 1) !== 117 /* u */) return null;
  for (let i = at + 2; i < at + 6; i++) if (!isHex(text.charCodeAt(i))) return null;
  return Number.parseInt(text.slice(at + 2, at + 6), 16);
}

/**
 * Scans JSON text without parsing it (no recursion, no allocation): refuses nesting deeper than
 * `maxDepth` and notes whether any string escapes a NUL or a lone surrogate. Malformed JSON is left
 * to JSON.parse. A string problem is located (`field`) by parsing, which is safe once depth is bounded.
 */
export function checkJsonText(text: string, maxDepth = MAX_JSON_DEPTH): TextRefusal | null {
  let depth = 0;
  let inString = false;
  let badString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 34 /* " */) inString = false;
      else if (c === 92 /* \ */) {
        const unit = escapedUnit(text, i);
        if (unit !== null) {
          if (unit === 0 || (unit >= 0xdc00 && unit <= 0xdfff)) badString = true;
          else if (unit >= 0xd800 && unit <= 0xdbff) {
            const low = text.charCodeAt(i + 6) === 92 ? escapedUnit(text, i + 6) : null;
            if (low === null || low < 0xdc00 || low > 0xdfff) badString = true;
            else i += 6;
          }
          i += 5;
        } else i += 1;
      } else if (c >= 0xd800 && c <= 0xdfff) badString = true; // only from text not decoded from UTF-8
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxDepth) return { message: `The JSON body is nested too deeply (more than ${maxDepth} levels)` };
    } else if (c === 93 || c === 125) depth--;
  }
  if (!badString) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null; // not JSON at all: the parser says so
  }
  return findBadString(value);
}

/** The first string (key or value) in a parsed JSON value that PostgreSQL would refuse, with its path. */
export function findBadString(value: unknown): TextRefusal | null {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    const refuse = (problem: string, at: PropertyKey[]) => {
      const field = issuePath(at, "indexed");
      return field ? { message: `${field}: ${problem}`, field } : { message: `The request body ${problem}` };
    };
    if (typeof v === "string") {
      const problem = stringProblem(v);
      if (problem) return refuse(problem, path);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
    } else if (v && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const problem = stringProblem(key);
        if (problem) return refuse(`has a key that ${problem}`, path);
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}
