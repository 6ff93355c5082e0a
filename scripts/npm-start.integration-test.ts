import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseUrl } from "@/test/helpers";
import { freePort } from "./lib/embedded-postgres";

// `npm start` as a user or a service manager runs it: npm, then scripts/serve.ts, the server and
// the embedded PostgreSQL under it. A stop signal goes to npm's pid only, as systemd, Docker or a
// supervisor send it.

const root = path.resolve(import.meta.dirname, "..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "dispatch-npm-start-"));
const running = new Set<ChildProcess>();
afterAll(async () => {
  // Only after a failed test: stop what it left, the way under test.
  for (const npm of running) {
    if (npm.exitCode !== null || npm.signalCode !== null) continue;
    const exited = new Promise((resolve) => npm.once("exit", resolve));
    npm.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every live process under `pid` (Linux /proc), with its command line. */
function descendants(pid: number): { pid: number; command: string }[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parentOf) {
      if (ppid !== parent || found.includes(child)) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found.filter(alive).map((p) => ({ pid: p, command: commandOf(p) }));
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Alive: exists and is not a zombie waiting for its parent. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Started = { npm: ChildProcess; port: number; pgPort: number; output: () => string; exited: Promise<number | null> };

async function npmStart(hostname: string): Promise<Started> {
  const [port, pgPort] = [await freePort(), await freePort()];
  let output = "";
  const npm = spawn("npm", ["start"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: "",
      AUTH_SECRET: "",
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_PG_PORT: String(pgPort),
      HOSTNAME: hostname,
      LOG_LEVEL: "info",
      npm_config_update_notifier: "false",
    },
  });
  running.add(npm);
  npm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200, `npm start healthy (output: ${output})`, 120_000);
  return { npm, port, pgPort, output: () => output, exited };
}

/** Sends `signal` to npm alone and checks that everything under it ended and let go of its ports. */
async function stopsCleanly({ npm, port, pgPort, exited }: Started, signal: NodeJS.Signals): Promise<void> {
  const tree = descendants(npm.pid!);
  expect(tree.some((p) => p.command.includes("start-server.mjs"))).toBe(true);
  expect(tree.some((p) => /\bpostgres\b/.test(p.command))).toBe(true);

  npm.kill(signal);
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 30_000))]);
  expect(code).toBe(0);
  expect(tree.filter((p) => alive(p.pid))).toEqual([]);
  expect(await portFree(port)).toBe(true);
  expect(await portFree(pgPort)).toBe(true);
}

describe("npm start", { timeout: 240_000 }, () => {
  it("listens only where HOSTNAME says, keeps the first admin's password out of its output, and stops on SIGTERM to npm", async () => {
    baseUrl(); // needs a production build
    const started = await npmStart("127.0.0.1");
    // Every 127/8 address reaches this machine; a server bound to 127.0.0.1 alone refuses the others.
    expect(await accepts("127.0.0.2", started.port)).toBe(false);

    const credentials = path.join(dataDir, "initial-admin.txt");
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const password = /password: (\S+)/.exec(readFileSync(credentials, "utf8"))![1]!;
    expect(started.output()).toContain(credentials);
    expect(started.output()).not.toContain(password);

    await stopsCleanly(started, "SIGTERM");
  });

  it("takes a HOSTNAME that is only this machine's name (as Docker sets it) for no choice, and stops on SIGINT to npm", async () => {
    const started = await npmStart(os.hostname());
    expect(await accepts("127.0.0.2", started.port)).toBe(true);
    expect(started.output()).toContain(`HOSTNAME is this machine's name (${os.hostname()})`);
    await stopsCleanly(started, "SIGINT");
  });
});
