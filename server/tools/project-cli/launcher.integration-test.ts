import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { ensureProjectCliBundle } from "./cli-bundle";
import { mintToolCredential, toolCredentialKey } from "./credential";

// The launcher must answer every call whatever state its code cache is in: the cache only saves
// compile time, and V8 (or the launcher's own id check) refuses one that does not fit.

const BUNDLE = "project-cli.bundle.cjs";
const CACHE = "project-cli.bundle.cache";

let dir: string;
let cache: Buffer;
let header: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const launcher = await ensureProjectCliBundle();
  const bin = path.dirname(launcher);
  dir = mkdtempSync(path.join(os.tmpdir(), "project-cli-"));
  for (const file of [path.basename(launcher), BUNDLE]) copyFileSync(path.join(bin, file), path.join(dir, file));
  cache = readFileSync(path.join(bin, CACHE));
  const source = readFileSync(path.join(bin, BUNDLE), "utf8");
  header = source.slice(0, source.indexOf("\n") + 1);
  // load-bundle.ts as the launcher has it, to ask whether V8 took the cache.
  await build({ entryPoints: [fileURLToPath(new URL("./load-bundle.ts", import.meta.url))], bundle: true, platform: "node", format: "cjs", outfile: path.join(dir, "load-bundle.cjs"), logLevel: "warning" });
  const user = await createTestUser();
  const key = toolCredentialKey();
  const credential = mintToolCredential({ userId: user.id, runId: randomUUID(), modules: ["memory"], key });
  env = { NODE_ENV: "test", TZ: "UTC", DATABASE_URL: inject("databaseUrl"), DISPATCH_TOOL_CREDENTIAL: credential, DISPATCH_TOOL_KEY: key };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function installCache(contents: Buffer | null) {
  rmSync(path.join(dir, CACHE), { force: true });
  if (contents) writeFileSync(path.join(dir, CACHE), contents);
}

/** A real call through the launcher, as the server makes it. */
function call() {
  const result = spawnSync(process.execPath, [path.join(dir, "project-cli.cjs"), "--time-zone", "UTC", "--", "memory", "read"], { input: "{}", env, encoding: "utf8" });
  return { code: result.status, stderr: result.stderr, json: JSON.parse(result.stdout) as unknown };
}

/** undefined: no cache was offered to V8; false: V8 used it; true: V8 refused it. */
function cacheRejected(): boolean | undefined {
  const script = `const { loadBundle } = require("./load-bundle.cjs");
    const { cacheRejected } = loadBundle(${JSON.stringify(path.join(dir, BUNDLE))}, ${JSON.stringify(path.join(dir, CACHE))});
    process.stdout.write(JSON.stringify(cacheRejected ?? null));`;
  const result = spawnSync(process.execPath, ["-e", script], { cwd: dir, env: { NODE_ENV: "test", TZ: "UTC" }, encoding: "utf8" });
  expect(result.stderr).toBe("");
  return (JSON.parse(result.stdout) as boolean | null) ?? undefined;
}

const expected = { ok: true, module: "memory", method: "read", data: { facts: [], count: 0 } };

describe("the project_cli launcher", () => {
  it("runs with the code cache the build made, and V8 takes that cache", () => {
    installCache(cache);
    expect(cacheRejected()).toBe(false);
    expect(call()).toEqual({ code: 0, stderr: "", json: expected });
  });

  it("answers the same when the cache is missing, corrupt, truncated or made for another bundle", () => {
    const otherBuild = `// project-cli ${randomBytes(32).toString("hex")}\n`;
    const cases: [string, Buffer | null, boolean | undefined][] = [
      ["missing", null, undefined],
      ["empty", Buffer.alloc(0), undefined],
      ["garbage", randomBytes(4_096), undefined],
      ["garbage after the right id", Buffer.concat([Buffer.from(header), randomBytes(4_096)]), true],
      ["truncated", cache.subarray(0, Math.floor(cache.length / 2)), true],
      ["another bundle's", Buffer.concat([Buffer.from(otherBuild), cache.subarray(header.length)]), undefined],
    ];
    for (const [what, contents, rejected] of cases) {
      installCache(contents);
      expect(cacheRejected(), what).toBe(rejected);
      expect(call(), what).toEqual({ code: 0, stderr: "", json: expected });
    }
  });
});
