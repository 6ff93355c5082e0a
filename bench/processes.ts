// Child processes of the benchmark and what the kernel says they cost. Every process the
// harness starts is registered here and stopped on exit, failure or Ctrl-C.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { readFileSync } from "node:fs";
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
