// `npm test`: the whole suite. Builds the app (integration and e2e tests run against the
// production server), then runs vitest (unit + integration) and Playwright (e2e), and
// ends with one summary line.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";

const reports = ".data/test-reports";
mkdirSync(reports, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" };

function run(label, cmd, args, extraEnv = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...env, ...extraEnv } });
  return r.status ?? 1;
}

const only = process.argv[2]; // "unit" | "e2e" | undefined (everything)
let failedSteps = 0;
if (process.env.SKIP_BUILD !== "1") {
  if (run("build", "npm", ["run", "build"]) !== 0) {
    console.error("next build failed");
    process.exit(1);
  }
}
if (only !== "e2e") {
  failedSteps += run("vitest", "npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${reports}/vitest.json`]) ? 1 : 0;
}
if (only !== "unit") {
  failedSteps += run("playwright", "npx", ["playwright", "test"], { PLAYWRIGHT_JSON_OUTPUT_NAME: `${reports}/playwright.json` }) ? 1 : 0;
}

let passed = 0;
let failed = 0;
let skipped = 0;
const vitestReport = `${reports}/vitest.json`;
if (only !== "e2e" && existsSync(vitestReport)) {
  const v = JSON.parse(readFileSync(vitestReport, "utf8"));
  passed += v.numPassedTests ?? 0;
  failed += (v.numFailedTests ?? 0);
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
}
const pwReport = `${reports}/playwright.json`;
if (only !== "unit" && existsSync(pwReport)) {
  const p = JSON.parse(readFileSync(pwReport, "utf8"));
  passed += p.stats?.expected ?? 0;
  failed += (p.stats?.unexpected ?? 0) + (p.stats?.flaky ?? 0);
  skipped += p.stats?.skipped ?? 0;
}
if (failedSteps > 0 && failed === 0) failed = failedSteps;
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedSteps > 0 || failed > 0 ? 1 : 0);
