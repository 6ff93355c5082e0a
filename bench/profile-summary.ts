// Summarises a .cpuprofile (from `npm run bench -- --profile DIR`) without a browser: self
// time by function and by source file, and inclusive time by source file and by function
// (each sample counted once per file or function on its stack). Frames in the Next build are mapped back to their
// sources through the build's .map files.
//   npx tsx bench/profile-summary.ts DIR/CPU.*.cpuprofile [--top 40]
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type Node = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "40" } } });
const top = Number(values.top);
const maps = new Map<string, SourceMap | null>();

function sourceMapFor(url: string): SourceMap | null {
  if (!maps.has(url)) {
    let map: SourceMap | null = null;
    try {
      const file = url.startsWith("file://") ? fileURLToPath(url) : url;
      if (existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return maps.get(url)!;
}

function shortPath(path: string): string {
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) return path.slice(nm + 13);
  const project = path.indexOf("[project]/");
  if (project >= 0) return path.slice(project + 10);
  return path.replace(/^.*\/work\/main\//, "");
}

const SPECIAL = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

/** Where a frame comes from: "file" and "function file:line", mapped to sources when possible. */
function locate(cf: CallFrame): { file: string; fn: string } {
  const name = cf.functionName || "(anonymous)";
  if (SPECIAL.has(name)) return { file: name, fn: name };
  if (!cf.url) return { file: "(native)", fn: `${name} (native)` };
  const map = sourceMapFor(cf.url);
  const entry = map?.findEntry(cf.lineNumber, cf.columnNumber) as { originalSource?: string; originalLine?: number; name?: string } | undefined;
  if (entry?.originalSource) {
    const file = shortPath(entry.originalSource);
    return { file, fn: `${entry.name ?? name} ${file}:${(entry.originalLine ?? 0) + 1}` };
  }
  const file = shortPath(cf.url);
  return { file, fn: `${name} ${file}:${cf.lineNumber + 1}` };
}

function print(title: string, m: Map<string, number>, total: number): void {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  }
}

for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const where = new Map(p.nodes.map((n) => [n.id, locate(n.callFrame)]));
  const selfFn = new Map<string, number>();
  const selfFile = new Map<string, number>();
  const inclFile = new Map<string, number>();
  const inclFn = new Map<string, number>();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    const w = where.get(id)!;
    if (w.file === "(idle)") return;
    busy += us;
    selfFn.set(w.fn, (selfFn.get(w.fn) ?? 0) + us);
    selfFile.set(w.file, (selfFile.get(w.file) ?? 0) + us);
    const seen = new Set<string>();
    const seenFn = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      seen.add(where.get(n)!.file);
      seenFn.add(where.get(n)!.fn);
    }
    for (const f of seen) inclFile.set(f, (inclFile.get(f) ?? 0) + us);
    for (const f of seenFn) inclFn.set(f, (inclFn.get(f) ?? 0) + us);
  });
  console.log(`${file}: ${(busy / 1e6).toFixed(1)} s busy (idle excluded; percentages of busy time)`);
  print("Inclusive by source file", inclFile, busy);
  print("Self by source file", selfFile, busy);
  print("Self by function", selfFn, busy);
  print("Inclusive by function", inclFn, busy);
}
