// The processes under test: the fake model, Dispatch's production server (next start on
// the existing build) and the bare node:http limit server. All listen on 127.0.0.1 only.
import type { ChildProcess } from "node:child_process";
import { existsSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { freePort } from "../scripts/lib/embedded-postgres";
import { ROOT, startProcess, startScript } from "./processes";

export type Server = { port: number; pid: number; url: string; stop: () => Promise<void> };

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

async function startTsServer(file: string, what: string, preferredPort: number, args: string[]): Promise<Server> {
  const port = await freePort(preferredPort);
  const child = startScript(file, ["--port", String(port), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  await waitForLine(child, "ready", what, 20_000);
  return { port, pid: child.pid!, url: `http://127.0.0.1:${port}`, stop: stopper(child) };
}

export function startFakeModel(preferredPort: number): Promise<Server> {
  return startTsServer("fake-model.ts", "The fake model", preferredPort, []);
}

export function startBaseline(preferredPort: number, modelUrl: string): Promise<Server> {
  return startTsServer("baseline-server.ts", "The baseline server", preferredPort, ["--model-url", modelUrl]);
}

export type DispatchEnv = { databaseUrl: string; authSecret: string; dataDir: string; modelUrl: string };

/** The server's normal configuration (server/env.ts), pointed at the throwaway database and fake model. */
export function dispatchEnv(e: DispatchEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_DIST_DIR: distDir(),
    DATABASE_URL: e.databaseUrl,
    AUTH_SECRET: e.authSecret,
    DATA_DIR: e.dataDir,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
    LLM_BASE_URL: e.modelUrl,
    LLM_API_KEY: "bench-model-key",
    LLM_MODEL: "bench-model",
    // Tuning knobs of server/env.ts worth comparing; unset means the server's default.
    ...(process.env.DATABASE_POOL_MAX ? { DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX } : {}),
    ...extra,
  };
}

/** A Dispatch server; `exited` resolves when its process has ended, however it was stopped. */
export type DispatchServer = Server & { exited: Promise<void> };

export async function startDispatch(preferredPort: number, e: DispatchEnv, opts: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<DispatchServer> {
  const port = await freePort(preferredPort);
  const url = `http://127.0.0.1:${port}`;
  // The server `npm start` runs; BENCH_NEXT_START=1 measures plain `next start` instead (every
  // request through Next, as on Vercel).
  const entry = process.env.BENCH_NEXT_START === "1" ? [createRequire(import.meta.url).resolve("next/dist/bin/next"), "start"] : ["scripts/start-server.mjs"];
  // The server's log lines (stdout) go nowhere unless BENCH_SERVER_LOG names a file to append them to.
  const logFile = process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, "a") : "ignore";
  const child = startProcess(process.execPath, [...(opts.nodeArgs ?? []), ...entry, "-p", String(port), "-H", "127.0.0.1"], {
    env: dispatchEnv(e, { PUBLIC_URL: url, ...opts.env }),
    stdio: ["ignore", logFile, "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Dispatch exited during start-up (code ${child.exitCode})`);
    if (Date.now() > deadline) throw new Error("Dispatch did not become healthy within 60 s");
    const ok = await fetch(`${url}/api/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, pid: child.pid!, url, stop: stopper(child), exited };
}
