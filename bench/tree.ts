// A measured system as the kernel sees it: every process under the roots the bench started
// (`npm start` → … → the node server, the PostgreSQL postmaster and its backends), sorted into
// groups by what they are, not by an assumed shape: the server is the process holding the
// listening socket (and whatever it starts), PostgreSQL is every `postgres` process (and its
// children), and the rest is the launcher (npm, a wrapper) that is neither.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export const GROUPS = ["wrapper", "server", "postgres"] as const;
export type Group = (typeof GROUPS)[number];

// utime+stime+cutime+cstime are in clock ticks (USER_HZ, 100 on Linux); the children's fields hold
// the ones that already exited (PostgreSQL backends, project_cli calls), so nothing counts twice.
const TICK_MS = 10;
const PAGE_KB = 4;

type Proc = { pid: number; ppid: number; comm: string; cpuMs: number; rssKb: number };

function readProc(pid: number): Proc | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces and parentheses: fields start after the last ")".
    const comm = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), comm, cpuMs: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS, rssKb: Number(f[21]) * PAGE_KB };
  } catch {
    return null;
  }
}

/** The roots and all their descendants, as they are now, each with its parent. */
function descendants(roots: number[]): Proc[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((p): p is Proc => p !== null);
  const byParent = new Map<number, Proc[]>();
  for (const p of all) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const tree = all.filter((p) => roots.includes(p.pid));
  for (let i = 0; i < tree.length; i++) tree.push(...(byParent.get(tree[i]!.pid) ?? []));
  return tree;
}

/** The socket inodes listening on 127.0.0.1:port (or any address), from /proc/net/tcp{,6}. */
function listeningInodes(port: number): Set<string> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let lines: string[];
    try {
      lines = readFileSync(file, "utf8").split("\n").slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // local_address rem_address st ... inode: state 0A is LISTEN
      if (f.length > 9 && f[1]!.endsWith(`:${hexPort}`) && f[3] === "0A") inodes.add(f[9]!);
    }
  }
  return inodes;
}

function holdsSocket(pid: number, inodes: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1]!)) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

export type GroupUsage = Record<Group, { cpuMs: number; rssKb: number; processes: number }>;
export type Memory = { pssKb: number; ussKb: number; rssKb: number };
export type GroupMemory = Record<Group, Memory>;

const sumMemory = (m: Memory[]): Memory => m.reduce((a, b) => ({ pssKb: a.pssKb + b.pssKb, ussKb: a.ussKb + b.ussKb, rssKb: a.rssKb + b.rssKb }), { pssKb: 0, ussKb: 0, rssKb: 0 });

/** Pss, Private_Clean+Private_Dirty (USS) and Rss of one process, in KB (zeros once it is gone). */
function smapsRollup(pid: number): Memory {
  let text = "";
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  } catch {
    return { pssKb: 0, ussKb: 0, rssKb: 0 };
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { pssKb: field("Pss"), ussKb: field("Private_Clean") + field("Private_Dirty"), rssKb: field("Rss") };
}

export type Tree = {
  roots: number[];
  /** CPU used so far and RSS now, per group; NaN figures when no root could be read. */
  usage(): GroupUsage;
  /** PSS, USS and RSS now, per group (reads smaps_rollup of every process: not for tight loops). */
  memory(): GroupMemory;
  /** Whether a process of this tree listens on the port (another program may hold it meanwhile). */
  listening(): boolean;
};

/**
 * The processes under `roots`; `port` is the server's listening port, which names the server.
 * The server's pid is found at the first reading that finds it, and kept.
 */
export function processTree(roots: number[], port: number): Tree {
  let serverPid: number | null = null;
  const classify = (): Map<Group, Proc[]> => {
    const procs = descendants(roots);
    if (serverPid === null || !procs.some((p) => p.pid === serverPid)) {
      const inodes = listeningInodes(port);
      serverPid = procs.find((p) => p.comm !== "postgres" && holdsSocket(p.pid, inodes))?.pid ?? null;
    }
    const group = new Map<number, Group>();
    const groups = new Map<Group, Proc[]>(GROUPS.map((g) => [g, []]));
    // Parents come before their children in `procs`, so a child inherits its parent's group.
    for (const p of procs) {
      const parent = group.get(p.ppid);
      const g: Group = p.pid === serverPid ? "server" : p.comm === "postgres" ? "postgres" : parent && parent !== "wrapper" ? parent : "wrapper";
      group.set(p.pid, g);
      groups.get(g)!.push(p);
    }
    return groups;
  };
  return {
    roots,
    usage() {
      const groups = classify();
      const empty = [...groups.values()].every((ps) => ps.length === 0);
      const out = {} as GroupUsage;
      for (const g of GROUPS) {
        const ps = groups.get(g)!;
        out[g] = empty ? { cpuMs: NaN, rssKb: NaN, processes: 0 } : { cpuMs: ps.reduce((n, p) => n + p.cpuMs, 0), rssKb: ps.reduce((n, p) => n + p.rssKb, 0), processes: ps.length };
      }
      return out;
    },
    listening() {
      classify();
      return serverPid !== null;
    },
    memory() {
      const groups = classify();
      const out = {} as GroupMemory;
      for (const g of GROUPS) out[g] = sumMemory(groups.get(g)!.map((p) => smapsRollup(p.pid)));
      return out;
    },
  };
}

/** Several systems measured as one (instances sharing a database): each group summed over the trees. */
export function combinedTree(trees: Tree[]): Tree {
  const sum = <T extends Record<string, number>>(parts: Record<Group, T>[]): Record<Group, T> =>
    Object.fromEntries(GROUPS.map((g) => [g, parts.map((p) => p[g]).reduce((a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k]! + b[k]!])) as T)])) as Record<Group, T>;
  return {
    roots: trees.flatMap((t) => t.roots),
    usage: () => sum(trees.map((t) => t.usage())),
    memory: () => sum(trees.map((t) => t.memory())),
    listening: () => trees.every((t) => t.listening()),
  };
}

export const totalCpu = (u: GroupUsage): number => GROUPS.reduce((n, g) => n + u[g].cpuMs, 0);
export const totalRss = (u: GroupUsage): number => GROUPS.reduce((n, g) => n + u[g].rssKb, 0);

/** Calls `sample` now, every `everyMs`, and once more when stopped; the stop function returns what `result` says then. */
export function sampleEvery<T>(everyMs: number, sample: () => void, result: () => T): () => T {
  sample();
  const timer = setInterval(sample, everyMs);
  return () => {
    clearInterval(timer);
    sample();
    return result();
  };
}

/** Samples the groups' PSS/USS every `everyMs` until stopped; returns each group's peak PSS sample. */
export function watchPeakMemory(tree: Tree, everyMs = 1_000): () => GroupMemory {
  const peak = Object.fromEntries(GROUPS.map((g) => [g, { pssKb: 0, ussKb: 0, rssKb: 0 }])) as GroupMemory;
  const sample = () => {
    const m = tree.memory();
    for (const g of GROUPS) if (m[g].pssKb > peak[g].pssKb) peak[g] = m[g];
  };
  return sampleEvery(everyMs, sample, () => peak);
}
