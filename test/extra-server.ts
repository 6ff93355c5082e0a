import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { freePort } from "@/scripts/lib/embedded-postgres";

export type ExtraServer = { url: string; child: ChildProcess };

/**
 * Another production server (the build in NEXT_DIST_DIR) on the test database, with the test
 * server's secrets and fake model: for tests that need a second instance or one they may kill.
 */
export async function startExtraServer(env: Record<string, string> = {}, opts: { onOutput?: (text: string) => void } = {}): Promise<ExtraServer> {
  const root = path.resolve(import.meta.dirname, "..");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(root, "scripts/start-server.mjs"), "-p", String(port), "-H", "127.0.0.1"], {
    cwd: root,
    // Its logs (stdout and stderr) go to `onOutput` when a test reads them, nowhere otherwise.
    stdio: opts.onOutput ? ["ignore", "pipe", "pipe"] : "ignore",
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: inject("databaseUrl"),
      AUTH_SECRET: inject("authSecret"),
      DATA_DIR: inject("dataDir"),
      LLM_BASE_URL: inject("llmBaseUrl"),
      LLM_API_KEY: inject("llmApiKey"),
      LLM_MODEL: inject("llmModel"),
      LOG_LEVEL: "silent",
      ...env,
    },
  });
  for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => opts.onOutput?.(chunk.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error("the extra server exited during start-up");
    if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) return { url, child };
    if (Date.now() > deadline) throw new Error("the extra server did not become healthy within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A test file's extra servers: `count` started before its tests (it needs a production build),
 * and every one in the list killed after them, those a test pushed as well (SIGKILL: a test may
 * have stopped some already).
 */
export function extraServersForFile(count: number): ExtraServer[] {
  const servers: ExtraServer[] = [];
  beforeAll(async () => {
    servers.push(...(await Promise.all(Array.from({ length: count }, () => startExtraServer()))));
  }, 90_000);
  afterAll(() => {
    for (const s of servers) s.child.kill("SIGKILL");
  });
  return servers;
}

/** Stops a server started by startExtraServer (SIGTERM, as an operator would) and waits for it to exit. */
export async function stopExtraServer(server: ExtraServer | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}
