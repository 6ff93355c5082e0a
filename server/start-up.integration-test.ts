import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/scripts/lib/embedded-postgres";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { startOwnedDatabase, type OwnedDatabase } from "@/test/owned-database";

// What a server does as it starts: a configuration that cannot work is refused with what to set,
// and on an empty database the first admin comes from DISPATCH_ADMIN_EMAIL/PASSWORD, once, however
// many instances start at the same time (a fresh Vercel deployment has no start script to do it).

const root = path.resolve(import.meta.dirname, "..");

/** Starts the production server with `env` and resolves with its exit code and output once it exits. */
async function startRefused(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, "scripts/start-server.mjs"), "-p", String(port), "-H", "127.0.0.1"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_ENV: "production", DATA_DIR: "/nonexistent", LOG_LEVEL: "silent", ...env },
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  // A server that started anyway is killed so the test sees it rather than hanging.
  const started = setInterval(() => {
    if (!output.includes("Ready on")) return;
    clearInterval(started);
    // Whatever it answers (or a reset, as it is killed), the test then sees the exit code.
    void fetch(`http://127.0.0.1:${port}/api/health`)
      .catch(() => {})
      .finally(() => child.kill("SIGKILL"));
  }, 200);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearInterval(started);
  return { code, output };
}

describe("start-up refuses what cannot work", () => {
  beforeAll(() => baseUrl()); // needs a production build

  it("production without AUTH_SECRET", async () => {
    const { code, output } = await startRefused({ AUTH_SECRET: "", DATABASE_URL: process.env.DATABASE_URL! });
    expect(code).not.toBe(0);
    expect(output).toContain("Dispatch cannot start: AUTH_SECRET is not set");
  });

  it("Vercel without S3 storage, naming the variables", async () => {
    const { code, output } = await startRefused({ VERCEL: "1", AUTH_SECRET: "x".repeat(32), DATABASE_URL: process.env.DATABASE_URL!, S3_BUCKET: "" });
    expect(code).not.toBe(0);
    expect(output).toContain("on Vercel, attachments need S3-compatible storage: set S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
  });
});

describe("the first admin from the environment", () => {
  let db: OwnedDatabase;
  const servers: ExtraServer[] = [];
  const admin = { DISPATCH_ADMIN_EMAIL: "First.Admin@Example.com", DISPATCH_ADMIN_PASSWORD: "a long first password" };

  beforeAll(async () => {
    baseUrl();
    db = await startOwnedDatabase();
  }, 90_000);

  afterAll(async () => {
    for (const s of servers) s.child.kill("SIGTERM");
    await db?.close();
  });

  it("is created once by instances starting together on an empty database, and signs in", { timeout: 120_000 }, async () => {
    servers.push(...(await Promise.all([0, 1, 2].map(() => startExtraServer({ DATABASE_URL: db.url, ...admin })))));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ email: string; role: string }>("select email, role from users");
      expect(rows).toEqual([{ email: "first.admin@example.com", role: "admin" }]);
    } finally {
      await client.end();
    }
    const cookie = await signInOverHttp("first.admin@example.com", admin.DISPATCH_ADMIN_PASSWORD, servers[1]!.url);
    expect(cookie).not.toBeNull();
    const me = await fetch(`${servers[2]!.url}/api/v1/me`, { headers: { cookie: cookie! } });
    expect(await me.json()).toMatchObject({ email: "first.admin@example.com", role: "admin", via: "session" });
  });
});
