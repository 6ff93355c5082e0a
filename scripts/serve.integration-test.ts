import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseUrl } from "@/test/helpers";
import { freePort, startEmbeddedPostgres } from "./lib/embedded-postgres";
import { migrate } from "./lib/migrator";

const root = path.resolve(import.meta.dirname, "..");

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("start-up with a database that is down", () => {
  it("exits non-zero with a message naming DATABASE_URL and no password", () => {
    const r = spawnSync(process.execPath, ["scripts/start.mjs"], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, DATABASE_URL: "postgresql://dispatch:hunter2-secret@127.0.0.1:1/dispatch", PORT: "1" },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("DATABASE_URL");
    expect(r.stderr).toContain("127.0.0.1:1/dispatch");
    expect(r.stderr + r.stdout).not.toContain("hunter2-secret");
  });
});

describe("a database outage while serving", () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-outage-"));
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill("SIGTERM");
    rmSync(scratch, { recursive: true, force: true });
  });

  it("answers 503 during the outage, keeps running, and recovers", async () => {
    baseUrl(); // needs a production build
    const pgPort = await freePort();
    let db = await startEmbeddedPostgres({ dataDir: scratch, port: pgPort });
    await migrate({ connectionString: db.url });
    const port = await freePort();
    server = spawn(process.execPath, [path.join(root, "scripts/start-server.mjs"), "-p", String(port), "-H", "127.0.0.1"], {
      cwd: root,
      stdio: "ignore",
      env: { ...process.env, NODE_ENV: "production", DATABASE_URL: db.url, AUTH_SECRET: "outage-test-secret", LOG_LEVEL: "silent" },
    });
    const health = () => fetch(`http://127.0.0.1:${port}/api/health`);
    await waitFor(async () => ((await health()).status === 200 ? true : undefined));

    await db.stop();
    const down = await health();
    expect(down.status).toBe(503);
    expect(((await down.json()) as { database: { reachable: boolean } }).database.reachable).toBe(false);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { authorization: `Bearer dsp_${"B".repeat(43)}` } });
    expect(me.status).toBe(503);
    expect(((await me.json()) as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");
    expect(server.exitCode).toBeNull();

    db = await startEmbeddedPostgres({ dataDir: scratch, port: pgPort });
    await waitFor(async () => ((await health()).status === 200 ? true : undefined));
    await db.stop();
  }, 120_000);
});
