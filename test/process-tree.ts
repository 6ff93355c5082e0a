import { readdirSync, readFileSync } from "node:fs";

// Processes as Linux's /proc shows them, for tests of what `npm start` runs and leaves behind.

export type Proc = { pid: number; ppid: number; command: string };

/** The fields after the command name, which is in parentheses and may hold spaces. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // gone
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/** Alive: exists and is not a zombie waiting for its parent. */
export function alive(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== null && fields[0] !== "Z";
}

/** Every live process under `pid`, parents before their children. */
export function descendants(pid: number): Proc[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields) parentOf.set(Number(entry), Number(fields[1]));
  }
  const found: Proc[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parentOf) {
      if (ppid !== parent || !alive(child)) continue;
      found.push({ pid: child, ppid, command: commandOf(child) });
      walk(child);
    }
  };
  walk(pid);
  return found;
}
