// The bare Next.js route handler limit (bench/next-limit/): copied to <repo>/.next-limit,
// built once with the repository's `next` (again when its sources change), served by `next start`.
import { spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { freePort } from "../scripts/lib/embedded-postgres";
import { ROOT, startProcess } from "./processes";
import type { MeasuredServer } from "./servers";
import { processTree } from "./tree";

const SOURCE = path.join(ROOT, "bench", "next-limit");
const APP = path.join(ROOT, ".next-limit");
const NEXT_BIN = createRequire(import.meta.url).resolve("next/dist/bin/next");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

function upToDate(): boolean {
  if (!existsSync(path.join(APP, ".next", "BUILD_ID"))) return false;
  return files(SOURCE).every((f) => {
    const copy = path.join(APP, path.relative(SOURCE, f));
    return existsSync(copy) && readFileSync(copy).equals(readFileSync(f));
  });
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...extra });

export async function buildNextLimit(log: (line: string) => void): Promise<void> {
  if (upToDate()) return;
  log("Next.js limit: building bench/next-limit into .next-limit/");
  rmSync(APP, { recursive: true, force: true });
  cpSync(SOURCE, APP, { recursive: true });
  const child = spawn(process.execPath, [NEXT_BIN, "build", APP], { cwd: ROOT, env: env(), stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err = (err + c.toString("utf8")).slice(-4_000)));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`next build of the Next.js limit failed (exit ${code}):\n${err.trim()}`);
}

export async function startNextLimit(preferredPort: number, modelUrl: string): Promise<MeasuredServer> {
  const port = await freePort(preferredPort);
  const url = `http://127.0.0.1:${port}`;
  const child = startProcess(process.execPath, [NEXT_BIN, "start", APP, "-p", String(port), "-H", "127.0.0.1"], { env: env({ LLM_BASE_URL: modelUrl }) });
  const deadline = Date.now() + 60_000;
  // Any answer from Next means it listens (GET /runs is a 405).
  while (!(await fetch(`${url}/runs`).then(() => true, () => false))) {
    if (child.exitCode !== null) throw new Error(`The Next.js limit exited during start-up (code ${child.exitCode})`);
    if (Date.now() > deadline) throw new Error("The Next.js limit did not start within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  };
  return { port, pid: child.pid!, url, stop, tree: processTree([child.pid!], port) };
}
