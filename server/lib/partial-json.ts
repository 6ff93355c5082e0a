// The value a JSON text that is still arriving (a tool call's streamed arguments) holds so far: the
// text is closed where it stops (an open string, arrays and objects) and parsed. A tail that cannot
// be closed into JSON yet (a key without its value, half a number or literal) gives undefined, and
// the next chunk is tried again. Used for predictive state (server/agent/predictive-state.ts).

/** The text with its open string, arrays and objects closed, and a dangling escape or comma dropped. */
function closed(text: string): string {
  const open: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") open.push(c === "{" ? "}" : "]");
    else if (c === "}" || c === "]") open.pop();
  }
  let body = text;
  if (inString) {
    // Half an escape (`\`, `\u12`) cannot be closed: it is left out until the rest arrives.
    body = (escaped ? body.slice(0, -1) : body.replace(/\\u[0-9a-fA-F]{0,3}$/, "")) + '"';
  } else body = body.replace(/,\s*$/, "");
  return body + open.reverse().join("");
}

/** What the JSON text holds so far, or undefined when its tail is not closable yet. */
export function parsePartialJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(closed(text));
  } catch {
    return undefined;
  }
}
