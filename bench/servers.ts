// The processes under test: the fake model, Dispatch's production server and the limit servers
// (bare node:http, and the durable limit: bare + PostgreSQL). All listen on 127.0.0.1 only.
// Dispatch starts three ways:
//   npm      `npm start`, as the README says: npm, its launcher, the server and the embedded
//            PostgreSQL under a scratch DATA_DIR (the default for runs, history and streams)
//   direct   scripts/start-server.mjs against a database the bench runs (recovery, profiles)
//   next     plain `next start` against that database, every route through Next (as on Vercel)
import type { ChildProcess } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { freePort } from "../scripts/lib/embedded-postgres";
import { ROOT, startProcess, startScript } from "./processes";
import { processTree, type Tree } from "./tree";

export type Server = { port: number; pid: number; url: string; stop: () => Promise<void> };

/** A server whose processes the bench accounts for (CPU and memory per group). */
export type MeasuredServer = Server & { tree: Tree };

export function distDir(): string {
  return process.env.NEXT_DIST_DIR || ".next";
}

/** Fails with what to do when there is no production build to measure. */
export function assertBuilt(): void {
  const dir = distDir();
  if (!existsSync(path.join(ROOT, dir, "BUILD_ID"))) {
    throw new Error(`No production build in ${dir}/. Run \`npm run build\` first (with the same NEXT_DIST_DIR), then \`npm run bench\`.`);
  }
  if (!existsSync(path.join(ROOT, "bin", "project-cli.cjs"))) {
    throw new Error("No project_cli bundle in bin/. Run `npm run build` first (it builds the CLI too).");
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }, 5_000);
    await exited;
    clearTimeout(force);
  };
}

function waitForLine(child: ChildProcess, line: string, what: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited during start-up (code ${code})`));
    });
  });
}

async function startTsServer(file: string, what: string, preferredPort: number, args: string[], alsoMeasured: number[] = []): Promise<MeasuredServer> {
  const port = await freePort(preferredPort);
  const child = startScript(file, ["--port", String(port), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  await waitForLine(child, "ready", what, 20_000);
  return { port, pid: child.pid!, url: `http://127.0.0.1:${port}`, stop: stopper(child), tree: processTree([child.pid!, ...alsoMeasured], port) };
}

export function startFakeModel(preferredPort: number): Promise<MeasuredServer> {
  return startTsServer("fake-model.ts", "The fake model", preferredPort, []);
}

export function startBaseline(preferredPort: number, modelUrl: string): Promise<MeasuredServer> {
  return startTsServer("baseline-server.ts", "The baseline server", preferredPort, ["--model-url", modelUrl]);
}

/**
 * The durable limit (bench/durable-server.ts) on the bench's PostgreSQL: its tree counts that
 * cluster (`dbPid`, the postmaster, and all its backends) as Dispatch's does.
 */
export function startDurable(preferredPort: number, modelUrl: string, db: { url: string; pid: number | null }): Promise<MeasuredServer> {
  return startTsServer("durable-server.ts", "The durable limit server", preferredPort, ["--model-url", modelUrl, "--database-url", db.url], db.pid ? [db.pid] : []);
}

/** A round-robin proxy (bench/proxy-server.ts) in front of `targets`; `close` stops it and returns how many requests each target got. */
export async function startProxy(targets: string[]): Promise<{ port: number; tree: Tree; close: () => Promise<number[]> }> {
  const child = startScript("proxy-server.ts", targets.flatMap((t) => ["--target", t]), { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("The proxy did not start within 20 s")), 20_000);
    const check = () => {
      const m = /^ready (\d+)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      resolve(Number(m[1]));
    };
    child.stdout!.on("data", check);
    void exited.then(() => reject(new Error(`The proxy exited during start-up (code ${child.exitCode})`)));
  });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    const last = out.trim().split("\n").at(-1)!;
    if (!last.startsWith("[")) throw new Error(`The proxy ended without its counts (code ${child.exitCode})`);
    return JSON.parse(last) as number[];
  };
  return { port, tree: processTree([child.pid!], port), close };
}

/** What a Dispatch server is started with; `dbPid` is the database's postmaster when the bench runs it. */
export type DispatchEnv = { databaseUrl: string; authSecret: string; dataDir: string; modelUrl: string; dbPid: number | null };

/** The server's normal configuration (server/env.ts), pointed at the throwaway database and fake model. */
export function dispatchEnv(e: DispatchEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...npmStartEnv(e), NODE_ENV: "production", DATABASE_URL: e.databaseUrl, AUTH_SECRET: e.authSecret, ...extra };
}

/** What the README asks of a user who runs `npm start` (the model, where state lives, the log level), with the follower caps lifted. */
function npmStartEnv(e: { dataDir: string; modelUrl: string }): Omit<NodeJS.ProcessEnv, "NODE_ENV"> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_DIST_DIR: distDir(),
    DATA_DIR: e.dataDir,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
    LLM_BASE_URL: e.modelUrl,
    LLM_API_KEY: "bench-model-key",
    LLM_MODEL: "bench-model",
    // The bench's one user holds 200 runs' streams at C=200 and thousands in the streams phase:
    // far past the follower caps that protect a real server, so they are lifted.
    RUN_FOLLOWERS_PER_RUN: "100000",
    RUN_FOLLOWERS_PER_USER: "100000",
    // Tuning knobs of server/env.ts worth comparing; unset means the server's default.
    ...(process.env.DATABASE_POOL_MAX ? { DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX } : {}),
    // The statement profile (bench/pg-statements.ts) needs the embedded cluster to load pg_stat_statements.
    ...(process.env.BENCH_PG_STATEMENTS ? { DISPATCH_PG_STATEMENTS: "1" } : {}),
  };
}

/** A Dispatch server; `exited` resolves when its process has ended, however it was stopped. */
export type DispatchServer = MeasuredServer & { exited: Promise<void> };

// The server's log lines (stdout) go nowhere unless BENCH_SERVER_LOG names a file to append them to.
const serverLog = () => (process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, "a") : "ignore");

/** Healthy, and answered by this tree: the port was free when picked, but another program may take it first. */
async function waitHealthy(child: ChildProcess, tree: Tree, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Dispatch exited during start-up (code ${child.exitCode}); is another program listening on ${url}?`);
    if (Date.now() > deadline) throw new Error(`Dispatch did not become healthy on ${url} within ${timeoutMs / 1000} s`);
    const ok = await fetch(`${url}/api/health`).then((r) => r.ok, () => false);
    if (ok && tree.listening()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startDispatch(
  preferredPort: number,
  e: DispatchEnv,
  opts: { nodeArgs?: string[]; next?: boolean; env?: Record<string, string> } = {},
): Promise<DispatchServer> {
  const port = await freePort(preferredPort);
  const url = `http://127.0.0.1:${port}`;
  const entry = opts.next || process.env.BENCH_NEXT_START === "1" ? [createRequire(import.meta.url).resolve("next/dist/bin/next"), "start"] : ["scripts/start-server.mjs"];
  const child = startProcess(process.execPath, [...(opts.nodeArgs ?? []), ...entry, "-p", String(port), "-H", "127.0.0.1"], {
    env: dispatchEnv(e, { ...opts.env, PUBLIC_URL: url }),
    stdio: ["ignore", serverLog(), "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const tree = processTree(e.dbPid ? [child.pid!, e.dbPid] : [child.pid!], port);
  await waitHealthy(child, tree, url, 60_000);
  return { port, pid: child.pid!, url, stop: stopper(child), exited, tree };
}

/** Where `npm start` keeps its state, and the database to use instead of its own when set (BENCH_DATABASE_URL). */
export type NpmStack = { dataDir: string; modelUrl: string; databaseUrl: string | null };

/**
 * `npm start -- -p PORT -H 127.0.0.1` with the README's configuration and nothing else: it opens
 * (the first time: creates) its embedded PostgreSQL under DATA_DIR, migrates, seeds the first
 * admin and serves. Stopped as a supervisor stops it: SIGTERM to npm, which passes it on.
 * `extraEnv`: what an operator adds (a second instance's AUTH_SECRET, shared with the first).
 */
export async function startNpmStart(preferredPort: number, stack: NpmStack, extraEnv: Record<string, string> = {}): Promise<DispatchServer> {
  const port = await freePort(preferredPort);
  const url = `http://127.0.0.1:${port}`;
  const env = { ...npmStartEnv(stack), ...(stack.databaseUrl ? { DATABASE_URL: stack.databaseUrl } : {}), ...extraEnv };
  // No NODE_ENV, as a user's shell has none: `npm start` sets the server's itself.
  const child = startProcess("npm", ["start", "--", "-p", String(port), "-H", "127.0.0.1"], { env: env as NodeJS.ProcessEnv, stdio: ["ignore", serverLog(), "pipe"] });
  // Its status lines (one per migration on the first start) are shown only when it fails to start.
  let status = "";
  child.stderr!.on("data", (c: Buffer) => (status = (status + c.toString("utf8")).slice(-6_000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const tree = processTree([child.pid!], port);
  // The first start creates the cluster and applies every migration.
  await waitHealthy(child, tree, url, 180_000).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; npm start said:\n${status.trim()}`);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const signal = (target: number, sig: NodeJS.Signals) => {
      try {
        process.kill(target, sig);
      } catch {
        // gone
      }
    };
    signal(child.pid!, "SIGTERM");
    const force = setTimeout(() => signal(-child.pid!, "SIGKILL"), 30_000);
    await exited;
    clearTimeout(force);
    // npm is gone once its script is; whatever of the group is left (nothing, normally) goes too.
    signal(-child.pid!, "SIGKILL");
  };
  return { port, pid: child.pid!, url, stop, exited, tree };
}

/** The database and secret `npm start` made under DATA_DIR (its pg.json and auth-secret files). */
export function npmStartDatabase(stack: NpmStack): { databaseUrl: string; authSecret: string } {
  const authSecret = readFileSync(path.join(stack.dataDir, "auth-secret"), "utf8").trim();
  if (stack.databaseUrl) return { databaseUrl: stack.databaseUrl, authSecret };
  const info = JSON.parse(readFileSync(path.join(stack.dataDir, "pg.json"), "utf8")) as { port: number; password: string };
  return { databaseUrl: `postgresql://postgres:${encodeURIComponent(info.password)}@127.0.0.1:${info.port}/dispatch`, authSecret };
}
