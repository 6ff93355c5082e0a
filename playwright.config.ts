import { defineConfig, devices } from "@playwright/test";
import { execSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// Debian's chromium: Playwright's own browser download is not reachable here.
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execSync("command -v chromium || command -v chromium-browser", { encoding: "utf8" }).trim();
  } catch {
    throw new Error("Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)");
  }
}

const port = Number(process.env.E2E_PORT ?? 3107);
const baseURL = `http://127.0.0.1:${port}`;
// The fake model beside the offline demo model: it thinks before answering (e2e/reasoning.e2e.ts).
const fakeLlmPort = port + 1;
export const FAKE_REASONER = "fake-reasoner";
/** The fake model's OpenAI-compatible URL, for agents a test starts beside the app (e2e/mastra-chat.e2e.ts). */
export const fakeLlmUrl = `http://127.0.0.1:${fakeLlmPort}/v1`;
// Playwright loads this file in every worker; keep one data dir per run.
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "dispatch-e2e-"));

export const e2eAdmin = { email: "admin@e2e.dispatch", password: "e2e-admin-password" };

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.e2e.ts",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json"]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    {
      command: "node --experimental-strip-types --no-warnings e2e/fake-llm-server.mjs",
      port: fakeLlmPort,
      reuseExistingServer: false,
      env: { FAKE_LLM_PORT: String(fakeLlmPort) },
    },
    {
      command: "node scripts/start.mjs",
      url: `${baseURL}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
      env: {
        // Always a fresh embedded database, so the seeded admin is the one below.
        DATABASE_URL: "",
        PORT: String(port),
        DATA_DIR: process.env.E2E_DATA_DIR,
        // The example runner e2e/runners.e2e.ts registers listens on loopback.
        RUNNER_ALLOWED_HOSTS: "127.0.0.1",
        DISPATCH_ADMIN_EMAIL: e2eAdmin.email,
        DISPATCH_ADMIN_PASSWORD: e2eAdmin.password,
        LOG_LEVEL: "warn",
        NEXT_TELEMETRY_DISABLED: "1",
        // Slow enough that Stop and reload-mid-run land while the answer still streams, even on
        // a loaded CI machine where SSE frames arrive in batches.
        DEMO_MODEL_DELAY_MS: "40",
        LLM_MODELS: JSON.stringify([{ id: FAKE_REASONER, label: "Fake reasoner", base_url: `http://127.0.0.1:${fakeLlmPort}/v1`, api_key: "fake-llm-key" }]),
      },
    },
  ],
});
