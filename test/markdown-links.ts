import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// What test/docs-links.test.ts checks in the repository's Markdown: every relative link (and its
// #anchor, by GitHub's heading-slug rules) and every backticked repository path must name
// something that exists. Fenced code blocks are examples, not references: they are skipped.

export type Problem = { file: string; line: number; message: string };

/** A page's lines, those of fenced code blocks blanked out (so line numbers stay right). */
export function withoutCodeBlocks(markdown: string): string[] {
  let closer: RegExp | null = null;
  return markdown.split("\n").map((line) => {
    if (closer) {
      if (closer.test(line)) closer = null;
      return "";
    }
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener) closer = new RegExp(`^\\s{0,3}${opener[0] === "`" ? "`" : "~"}{${opener.length},}\\s*$`);
    return opener ? "" : line;
  });
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(text: string): string {
  const plain = text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "");
  return plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = headingSlug(heading);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const id of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

const INLINE_CODE = /(`+)(.+?)\1/g;
const LINK = /!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/;

/** The link targets on one line (inline links, images and reference definitions), code spans aside. */
export function linkTargets(line: string): string[] {
  const text = line.replace(INLINE_CODE, "");
  const reference = REFERENCE.exec(text)?.[1];
  return [...[...text.matchAll(LINK)].map((m) => m[1]!), ...(reference ? [reference] : [])];
}

// Extensions of files the docs name; a code span ending in one (or in "/") and holding a "/" is a
// repository path. Anything with a placeholder or a pattern in it (`<id>`, `{a,b}`, `*`) is not.
const FILE_EXTENSIONS = ["md", "ts", "tsx", "mts", "js", "mjs", "cjs", "json", "sql", "prisma", "yml", "yaml", "sh", "css", "toml", "proto", "html", "txt"];
const PATH_LIKE = new RegExp(String.raw`^(?:\.{1,2}/)*[\w@.-]+(?:/[\w@.-]+)*(?:\.(?:${FILE_EXTENSIONS.join("|")})|/)$`);

/** The backticked repository paths on one line: `server/x/y.ts`, `docs/`, `../sdk/runner/README.md`. */
export function codePaths(line: string): string[] {
  return [...line.matchAll(INLINE_CODE)]
    .map((m) => m[2]!.trim().replace(/:\d+(?::\d+)?$/, "").replace(/#.*$/, ""))
    .filter((token) => token.includes("/") && !token.startsWith("/") && PATH_LIKE.test(token));
}

const isExternal = (target: string) => /^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith("//");

// What the project makes at run or build time, which the docs name and no fresh checkout has: the
// data folder (DATA_DIR), Next's build output (.next/, and .next-* of other builds) and the
// project_cli build (bin/, scripts/build-cli.mjs).
const RUNTIME_PATHS = [".data/", ".next", "bin/"];

/**
 * The repository's files and folders (folders with a trailing "/"), relative to `root`: what git
 * tracks or would track (.gitignore'd output and dependencies left out). A backticked path may be
 * the tail of one of them, as ARCHITECTURE.md names `runs/recovery.ts` inside `server/`.
 */
export function repositoryPaths(root: string): string[] {
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((f) => f !== "" && existsSync(path.join(root, f)));
  const folders = new Set(files.flatMap((f) => f.split("/").slice(0, -1).map((_, i, parts) => `${parts.slice(0, i + 1).join("/")}/`)));
  return [...files, ...folders].sort();
}

type Context = { root: string; anchorsFor: (file: string) => Set<string>; paths: readonly string[] };

// Outside the repository nothing is the repository's: a shared folder beside a checkout is not
// beside every checkout.
const inside = (root: string, p: string) => !path.relative(root, p).startsWith("..");

function pathExists({ root, paths }: Context, dir: string, token: string): boolean {
  if (RUNTIME_PATHS.some((p) => token.startsWith(p))) return true;
  const present = (p: string) => inside(root, p) && existsSync(p) && (!token.endsWith("/") || statSync(p).isDirectory());
  if (token.startsWith("./") || token.startsWith("../")) return present(path.resolve(dir, token));
  return present(path.join(root, token)) || present(path.resolve(dir, token)) || paths.some((p) => p.endsWith(`/${token}`));
}

function linkProblem({ root, anchorsFor }: Context, file: string, dir: string, target: string): string | null {
  const [rawPath = "", anchor] = target.split("#", 2);
  const linked = rawPath === "" ? path.join(root, file) : rawPath.startsWith("/") ? path.join(root, decodeURI(rawPath)) : path.resolve(dir, decodeURI(rawPath));
  if (!inside(root, linked) || !existsSync(linked)) return `link to ${target}: ${path.relative(root, linked)} does not exist in the repository`;
  if (anchor && linked.endsWith(".md") && !anchorsFor(path.relative(root, linked)).has(decodeURIComponent(anchor))) {
    return `link to ${target}: ${path.relative(root, linked)} has no heading with the anchor #${anchor}`;
  }
  return null;
}

/** Checks one Markdown file of the repository; `file` is relative to the root. */
function checkMarkdownFile(context: Context, file: string): Problem[] {
  const problems: Problem[] = [];
  const dir = path.dirname(path.join(context.root, file));
  withoutCodeBlocks(readFileSync(path.join(context.root, file), "utf8")).forEach((line, i) => {
    const at = (message: string) => problems.push({ file, line: i + 1, message });
    for (const target of linkTargets(line)) {
      const problem = isExternal(target) || target === "" ? null : linkProblem(context, file, dir, target);
      if (problem) at(problem);
    }
    for (const token of codePaths(line)) if (!pathExists(context, dir, token)) at(`\`${token}\` does not exist in the repository`);
  });
  return problems;
}

/** Every problem in the repository's Markdown (README.md, ARCHITECTURE.md, docs/ and the rest). */
export function checkProjectMarkdown(root: string): Problem[] {
  const cache = new Map<string, Set<string>>();
  const anchorsFor = (file: string) => {
    if (!cache.has(file)) cache.set(file, anchorsOf(readFileSync(path.join(root, file), "utf8")));
    return cache.get(file)!;
  };
  const paths = repositoryPaths(root);
  const context = { root, anchorsFor, paths };
  return paths.filter((p) => p.endsWith(".md")).flatMap((file) => checkMarkdownFile(context, file));
}
