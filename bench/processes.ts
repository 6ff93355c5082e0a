// Child processes of the benchmark and what the kernel says they cost. Every process the
// harness starts is registered here and stopped on exit, failure or Ctrl-C.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];
let stopping: Promise<void> | null = null;

export const ROOT = path.resolve(import.meta.dirname, "..");
const TSX_LOADER = createRequire(import.meta.url).resolve("tsx");

/** Starts a process that is killed (with its process group) when the harness ends. */
export function startProcess(command: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], ...opts, detached: true });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** A TypeScript file of this folder in its own node process (tsx loader, no extra launcher process). */
export function startScript(file: string, args: string[], opts: SpawnOptions & { conditions?: string[] } = {}): ChildProcess {
  const flags = (opts.conditions ?? []).map((c) => `--conditions=${c}`);
  return startProcess(process.execPath, [...flags, "--import", TSX_LOADER, path.join(ROOT, "bench", file), ...args], opts);
}

/** Runs a script to completion and returns its stdout; fails with its stderr. */
export async function runScript(file: string, args: string[], opts: SpawnOptions & { conditions?: string[]; timeoutMs: number }): Promise<string> {
  const child = startScript(file, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (err = (err + c.toString("utf8")).slice(-8_000)));
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`bench/${file} failed (exit ${code}):\n${err.trim()}`);
  return out;
}

/** Registers work to undo when the harness ends (database, temp folders). Runs last-in first-out. */
export function onCleanup(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const force = setTimeout(() => signal("SIGKILL"), 5_000);
  await exited;
  clearTimeout(force);
}

/** Stops every child, then runs the cleanups. Safe to call more than once. */
export function stopAll(): Promise<void> {
  stopping ??= (async () => {
    await Promise.all([...children].map(stopChild));
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => console.error(`cleanup failed: ${String(err)}`));
  })();
  return stopping;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    console.error(`\n${sig}: stopping the benchmark's processes`);
    void stopAll().finally(() => process.exit(130));
  });
}

// /proc accounting. utime+stime are in clock ticks (USER_HZ, 100 on Linux); cutime+cstime
// hold the children that already exited (project_cli calls), so nothing is counted twice.
const TICK_MS = 10;
const PAGE_KB = 4;

type ProcStat = { pid: number; ppid: number; cpuMs: number; rssKb: number };

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces and parentheses: fields start after the last ")".
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), cpuMs: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS, rssKb: Number(f[21]) * PAGE_KB };
  } catch {
    return null;
  }
}

/** The process and all its descendants, as they are now. */
export function processTree(rootPid: number): ProcStat[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== null);
  const byParent = new Map<number, ProcStat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const root = all.find((s) => s.pid === rootPid);
  if (!root) return [];
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(byParent.get(tree[i]!.pid) ?? []));
  return tree;
}

export type TreeUsage = { cpuMs: number; rssKb: number };

/**
 * CPU time used so far and resident memory now, summed over the process tree; NaN (printed as
 * "–") when the process could not be read, rather than a figure that is silently wrong.
 */
export function treeUsage(rootPid: number): TreeUsage {
  const tree = processTree(rootPid);
  if (tree.length === 0) return { cpuMs: NaN, rssKb: NaN };
  return { cpuMs: tree.reduce((n, s) => n + s.cpuMs, 0), rssKb: tree.reduce((n, s) => n + s.rssKb, 0) };
}

/** Samples RSS every `everyMs` until stopped; returns the peak seen (NaN if no sample could be read). */
export function watchPeakRss(rootPid: number, everyMs = 100): () => number {
  let peak = NaN;
  const sample = () => {
    const rss = treeUsage(rootPid).rssKb;
    if (Number.isFinite(rss) && (Number.isNaN(peak) || rss > peak)) peak = rss;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

/**
 * The share of this machine's CPU time its host took (steal, from /proc/stat) between this call
 * and the returned function's, in percent; NaN where /proc/stat cannot be read. On a shared
 * virtual machine the figures move with it.
 */
export function watchSteal(): () => number {
  const read = (): { steal: number; total: number } | null => {
    try {
      // cpu user nice system idle iowait irq softirq steal (guest time is already in user)
      const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
      if (fields.length < 8 || fields.some((f) => !Number.isFinite(f))) return null;
      return { steal: fields[7]!, total: fields.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const start = read();
  return () => {
    const end = read();
    if (!start || !end || end.total <= start.total) return NaN;
    return (100 * (end.steal - start.steal)) / (end.total - start.total);
  };
}
