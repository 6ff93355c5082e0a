// Integration harness: a fresh database for this run (on the embedded PostgreSQL, or on
// the server DATABASE_URL names), migrated, and the production server started against it
// when a build exists. Tests read both through `inject`.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { ensureDatabase, freePort, startEmbeddedPostgres } from "../scripts/lib/embedded-postgres";
import { migrate } from "../scripts/lib/migrator";
import { startFakeLlm } from "./fake-llm";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    baseUrl: string;
    authSecret: string;
    dataDir: string;
    /** The model id the test server's fake OpenAI-compatible LLM answers as. */
    llmModel: string;
    llmBaseUrl: string;
    llmApiKey: string;
  }
}

async function waitForHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once("exit", () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error("The test server exited during start-up");
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`The test server did not become healthy within ${timeoutMs} ms`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = path.resolve(import.meta.dirname, "..");
  const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-test-"));
  const external = process.env.DATABASE_URL;
  const cluster = external ? null : await startEmbeddedPostgres({ dataDir: scratch, database: "postgres", persistent: false });
  const serverUrl = new URL(external ?? cluster!.url);
  const dbName = `dispatch_test_${randomBytes(5).toString("hex")}`;
  const adminUrl = new URL(serverUrl);
  adminUrl.pathname = "/postgres";
  await ensureDatabase(adminUrl.toString(), dbName);
  const testUrl = new URL(serverUrl);
  testUrl.pathname = `/${dbName}`;
  const databaseUrl = testUrl.toString();
  await migrate({ connectionString: databaseUrl });

  const authSecret = randomBytes(32).toString("base64url");
  const dataDir = path.join(scratch, "data");
  // Every HTTP test exercises the real OpenAI-compatible provider path against the fake LLM.
  const llm = await startFakeLlm();
  let server: ChildProcess | null = null;
  let baseUrl = "";
  if (existsSync(path.join(root, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID")) && process.env.TEST_SKIP_SERVER !== "1") {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [path.join(root, "scripts/start-server.mjs"), "-p", String(port), "-H", "127.0.0.1"], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: databaseUrl,
        AUTH_SECRET: authSecret,
        DATA_DIR: dataDir,
        LOG_LEVEL: process.env.TEST_SERVER_LOG_LEVEL ?? "error",
        NEXT_TELEMETRY_DISABLED: "1",
        PUBLIC_URL: baseUrl,
        RUNNER_ALLOWED_HOSTS: "127.0.0.1",
        // As in setup-env.ts: the suite's refused keys all come from 127.0.0.1.
        CREDENTIAL_FAILURES_FREE_PER_ADDRESS: "1000000",
        CREDENTIAL_FAILURES_PER_MINUTE: "1000000",
        // The Agent API image tests serve their "foreign" images from 127.0.0.1 (and refuse localhost).
        IMAGE_URL_ALLOWED_HOSTS: "127.0.0.1",
        // Webhook retries at a test's pace (server/webhooks), and attempts that give up on a silent receiver soon.
        WEBHOOK_RETRY_BASE_MS: "200",
        WEBHOOK_TIMEOUT_MS: "2000",
        WEBHOOK_DISABLE_AFTER_FAILURES: "8",
        WEBHOOK_DISABLE_AFTER_SECONDS: "1",
        // Schedules may be due every second, so a test sees several due times fire (server/schedules).
        SCHEDULE_MIN_INTERVAL_SECONDS: "1",
        LLM_BASE_URL: llm.baseUrl,
        LLM_API_KEY: llm.apiKey,
        LLM_MODEL: llm.model,
      },
    });
    await waitForHealthy(`${baseUrl}/api/health`, server, 60_000);
  }

  project.provide("databaseUrl", databaseUrl);
  project.provide("baseUrl", baseUrl);
  project.provide("authSecret", authSecret);
  project.provide("dataDir", dataDir);
  project.provide("llmModel", llm.model);
  project.provide("llmBaseUrl", llm.baseUrl);
  project.provide("llmApiKey", llm.apiKey);

  return async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    await llm.close();
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await cluster?.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
}
