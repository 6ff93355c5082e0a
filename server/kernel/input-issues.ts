// What a failed zod parse says about the input, in the forms the edges report it: `{field,
// message}` for the first problem (a 400's message and details.field), `{path, message}` lists
// for the ones that report every problem (tRPC, the host API, service input). Pure, so protocol
// parsers use it as well as the edges.

type IssueLike = { readonly path: readonly PropertyKey[]; readonly message: string };

/**
 * A field's path: dotted (`messages.0.content`), or indexed as the protocol documents write it
 * (`messages[0].content`).
 */
export function issuePath(path: readonly PropertyKey[], style: "dotted" | "indexed" = "dotted"): string {
  if (style === "dotted") return path.map(String).join(".");
  return path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`), "");
}

/** The first problem, or null when zod reported none. */
export function firstIssue(issues: readonly IssueLike[], style: "dotted" | "indexed" = "dotted"): { field: string; message: string } | null {
  const issue = issues[0];
  return issue ? { field: issuePath(issue.path, style), message: issue.message } : null;
}

/** Every problem (or the first `limit`), each with its dotted path. */
export function inputIssues(issues: readonly IssueLike[], limit = issues.length): { path: string; message: string }[] {
  return issues.slice(0, limit).map((i) => ({ path: issuePath(i.path), message: i.message }));
}
