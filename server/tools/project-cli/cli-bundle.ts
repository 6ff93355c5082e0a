import "server-only";
import { spawn } from "node:child_process";
import { access } from "node:fs/promises";
import path from "node:path";
import { env } from "../../env";

// The CLI runs as a bundled executable (bin/project-cli.cjs). `npm run build` can produce it
// ahead of time; the server also builds it on first use (and after its sources changed), once
// per process. On Vercel the build made it and the deployment ships it with no sources nor
// esbuild beside it: it is used as it is, with no check (which would cost each instance a process).

export const PROJECT_CLI_BUNDLE = path.join(process.cwd(), "bin", "project-cli.cjs");
const BUILD_SCRIPT = path.join(process.cwd(), "scripts", "build-cli.mjs");
const BUILD_TIMEOUT_MS = 60_000;

let ready: Promise<string> | null = null;

/** Path of an up-to-date bundle; builds it when missing or stale. */
export function ensureProjectCliBundle(): Promise<string> {
  ready ??= (env.VERCEL ? shipped() : buildIfStale()).catch((err: unknown) => {
    ready = null;
    throw err;
  });
  return ready;
}

async function shipped(): Promise<string> {
  try {
    await access(PROJECT_CLI_BUNDLE);
  } catch {
    throw new Error(`${PROJECT_CLI_BUNDLE} is missing from the deployment: the build (npm run vercel-build) makes it`);
  }
  return PROJECT_CLI_BUNDLE;
}

function buildIfStale(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILD_SCRIPT, "--if-stale"], {
      shell: false,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: BUILD_TIMEOUT_MS,
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4_000)));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(PROJECT_CLI_BUNDLE) : reject(new Error(`Building the project_cli bundle failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}
