// `npm test`: the whole suite. Builds the app (integration and e2e tests run against the
// production server), then runs vitest (unit + integration) and Playwright (e2e), and
// ends with one summary line.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";

const reports = ".data/test-reports";
mkdirSync(reports, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" };

function run(label, cmd, args, extraEnv = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...env, ...extraEnv } });
  return r.status ?? 1;
}

const only = process.argv[2]; // "unit" | "e2e" | undefined (everything)
// The nested npm projects of the real clients and agent frameworks the integration tests drive
// (test/clients/README.md, test/framework-agents/README.md): installed from their lockfiles when
// a fresh clone has not yet, so that `npm ci && npm test` is all a newcomer runs.
const nested = ["test/clients", "test/framework-agents"];
// Each folder's projects: its subfolders with a package.json (what its install.sh runs `npm ci` in).
const projectsIn = (dir) => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(`${dir}/${e.name}/package.json`)).map((e) => e.name);
if (only !== "e2e") {
  for (const dir of nested) {
    if (projectsIn(dir).every((p) => existsSync(`${dir}/${p}/node_modules`))) continue;
    if (run(`install ${dir}`, "bash", [`${dir}/install.sh`]) !== 0) {
      console.error(`${dir}/install.sh failed`);
      process.exit(1);
    }
  }
}
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
/** "file › test: first line of the error", one per failed test, repeated above the summary line. */
const failures = [];
const firstLine = (text) =>
  String(text ?? "")
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
    .split("\n")
    .find((line) => line.trim()) ?? "";
const vitestReport = `${reports}/vitest.json`;
if (only !== "e2e" && existsSync(vitestReport)) {
  const v = JSON.parse(readFileSync(vitestReport, "utf8"));
  passed += v.numPassedTests ?? 0;
  failed += (v.numFailedTests ?? 0);
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
  for (const file of v.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status === "failed") failures.push(`${file.name.replace(`${process.cwd()}/`, "")} › ${t.fullName ?? t.title}: ${firstLine(t.failureMessages?.[0])}`);
    }
    if (file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed")) {
      failures.push(`${file.name.replace(`${process.cwd()}/`, "")}: ${firstLine(file.message) || "failed outside its tests (a hook or the file itself)"}`);
    }
  }
}
const pwReport = `${reports}/playwright.json`;
if (only !== "unit" && existsSync(pwReport)) {
  const p = JSON.parse(readFileSync(pwReport, "utf8"));
  passed += p.stats?.expected ?? 0;
  failed += (p.stats?.unexpected ?? 0) + (p.stats?.flaky ?? 0);
  skipped += p.stats?.skipped ?? 0;
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status === "unexpected" || t.status === "flaky") {
          const error = t.results?.find((r) => r.error)?.error?.message;
          failures.push(`${spec.file} › ${[...titles, spec.title].join(" › ")} (${t.status}): ${firstLine(error)}`);
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, suite.title && !suite.title.endsWith(".ts") ? [...titles, suite.title] : titles);
  };
  for (const suite of p.suites ?? []) visit(suite, []);
}
if (failedSteps > 0 && failed === 0) failed = failedSteps;
// Last, so that the tail of a CI log names what failed.
if (failures.length > 0) console.log(`\nfailed:\n${failures.map((f) => `  ${f.slice(0, 400)}`).join("\n")}`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedSteps > 0 || failed > 0 ? 1 : 0);
