#!/usr/bin/env node
// Moves server/ into feature rooms (scripts/rooms/table.mjs: old path → new path) and rewrites
// every import that named an old path, in the whole repository. Run from anywhere in the repo:
//   node scripts/rooms/move.mjs
// Re-runnable and deterministic: a file already at its new path is not moved again, and an
// import that already names an existing file is left as written, so a second run changes
// nothing. It also rewrites files it has never seen (another branch's new files that import an
// old path): each import is resolved as the file meant it, then pointed at where that file is now.
//
// Rewritten: static imports and re-exports, `import "x"`, import(), require(), typeof import(),
// vi.mock / vi.doMock / vi.importActual and friends, for specifiers that are relative or start
// with "@/" (the repo root), in .ts .tsx .mts .cts .js .mjs .cjs files git knows (tracked, or
// untracked and not ignored). Mentions of an old path in comments and docs ("server/x/y.ts", or
// "x/y.ts" written from server/) become the new path too.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOM_MOVES } from "./table.mjs";

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const posix = (p) => p.split(path.sep).join("/");
const abs = (rel) => path.join(root, rel);
const isFile = (rel) => existsSync(abs(rel)) && statSync(abs(rel)).isFile();

const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|prisma)$/;
const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"];
const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bvi\.(?:mock|doMock|unmock|doUnmock|importActual|importMock)\s*(?:<[^>()]*>)?\s*\(\s*)(["'])([^"'\n]+)\2/g;

const oldToNew = new Map(ROOM_MOVES);
checkTable();

const movedNow = moveFiles();
const changed = rewriteFiles(movedNow);
console.log(`moved ${movedNow.size} files, rewrote ${changed} files`);

function checkTable() {
  const targets = new Set();
  for (const [, to] of ROOM_MOVES) {
    if (targets.has(to) || oldToNew.has(to)) throw new Error(`table: ${to} is named twice`);
    targets.add(to);
  }
}

/** git mv each old path that exists to its new path; answers new path → old path of those moved now. */
function moveFiles() {
  const tracked = new Set(gitFiles(["ls-files"]));
  const moved = new Map();
  for (const [from, to] of ROOM_MOVES) {
    if (!isFile(from)) continue;
    if (existsSync(abs(to))) throw new Error(`${from} and ${to} both exist: move one by hand first`);
    mkdirSync(path.dirname(abs(to)), { recursive: true });
    if (tracked.has(from)) execFileSync("git", ["mv", from, to], { cwd: root });
    else renameSync(abs(from), abs(to));
    moved.set(to, from);
  }
  return moved;
}

function gitFiles(args) {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\n")
    .filter(Boolean)
    .map(posix);
}

function rewriteFiles(moved) {
  const files = [...new Set([...gitFiles(["ls-files"]), ...gitFiles(["ls-files", "--others", "--exclude-standard"])])]
    .filter((f) => TEXT.test(f) && !f.includes("node_modules/") && !f.startsWith("server/generated/") && !f.startsWith("scripts/rooms/") && isFile(f))
    .sort();
  let changed = 0;
  for (const file of files) {
    const before = readFileSync(abs(file), "utf8");
    let after = CODE.test(file) ? rewriteSpecifiers(file, moved.get(file) ?? file, before) : before;
    after = rewriteMentions(after);
    if (after !== before) {
      writeFileSync(abs(file), after);
      changed++;
    }
  }
  return changed;
}

/** Each import specifier of `file` (which sat at `wasAt` when it was written), pointed at where its target is now. */
function rewriteSpecifiers(file, wasAt, text) {
  return text.replace(SPECIFIER, (match, lead, quote, spec) => {
    const alias = spec.startsWith("@/");
    if (!alias && !spec.startsWith("./") && !spec.startsWith("../")) return match;
    const base = alias ? spec.slice(2) : posix(path.normalize(path.join(path.dirname(wasAt), spec)));
    const target = resolve(base);
    if (!target) return match;
    const now = oldToNew.get(target.file) ?? target.file;
    if (now === target.file && file === wasAt) return match;
    return `${lead}${quote}${specifierFor(file, now, target, alias)}${quote}`;
  });
}

/** The file a module path names (as written, or with an extension, or its folder's index), looked up in the table first. */
function resolve(base) {
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => `${base}/index${e}`)];
  for (const candidate of candidates) {
    const kind = candidate === base ? "exact" : candidate.startsWith(`${base}/index`) ? "index" : "extension";
    if (oldToNew.has(candidate) || isFile(candidate)) return { file: candidate, kind };
  }
  return null;
}

function specifierFor(file, now, target, alias) {
  // A folder's index keeps naming the folder when it did not move; a moved one is named as a file.
  const unmovedIndex = target.kind === "index" && now === target.file;
  const named = target.kind === "exact" ? now : unmovedIndex ? path.posix.dirname(now) : now.replace(/\.[^./]+$/, "");
  if (alias) return `@/${named}`;
  const relative = path.posix.relative(path.posix.dirname(file), named);
  return relative.startsWith(".") ? relative : `./${relative}`;
}

/**
 * "server/services/runs.ts" in a comment or a doc becomes its new path; so does a path written
 * from server/ ("services/runs.ts" becomes "runs/service/runs.ts").
 */
function rewriteMentions(text) {
  return text.replace(/(?<![\w./-])[\w-]+(?:\/[\w.-]+)+\.tsx?\b/g, (mention) => {
    if (oldToNew.has(mention)) return oldToNew.get(mention);
    const fromServer = oldToNew.get(`server/${mention}`);
    return fromServer ? fromServer.slice("server/".length) : mention;
  });
}
