// Builds the app as Vercel does, offline: the pinned Vercel CLI (.ci/vercel) runs `vercel build`
// on a copy of this checkout, which runs vercel.json's build command (npm run vercel-build: the
// project_cli executable, migrations on DATABASE_URL, next build) and writes the Build Output API
// tree (functions with their .vc-config.json and launcher) to <copy>/.vercel/output.
//   DATABASE_URL=... node test/vercel/build.mjs <copy dir>
// A copy, because vercel build writes into the project (.vercel/, .next/) and the smoke test
// serves the result from a read-only folder. node_modules is hard-linked, not installed again:
// VERCEL_INSTALL_COMPLETED tells the CLI the install step is done.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const target = path.resolve(process.argv[2] ?? "");
if (!process.argv[2]) {
  console.error("usage: DATABASE_URL=... node test/vercel/build.mjs <copy dir>");
  process.exit(2);
}
const cli = path.join(root, ".ci/vercel/node_modules/vercel/dist/index.js");
if (!existsSync(cli)) {
  console.error("The Vercel CLI is not installed: (cd .ci/vercel && npm install)");
  process.exit(2);
}

rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
// The checkout's files as git sees them (committed or not, never ignored ones).
const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root })
  .toString("utf8")
  .split("\0")
  .filter((f) => f && existsSync(path.join(root, f)) && !f.startsWith(".ci/") && !f.startsWith("test/clients/"));
const tar = spawnSync("sh", ["-c", `tar -c --null -T - -f - | tar -x -f - -C "${target}"`], { cwd: root, input: files.join("\0"), stdio: ["pipe", "inherit", "inherit"] });
if (tar.status !== 0) process.exit(1);
// Installed state: the dependencies (hard links: no copy, no install) and the generated Prisma types.
execFileSync("cp", ["-al", path.join(root, "node_modules"), path.join(target, "node_modules")]);
execFileSync("cp", ["-a", path.join(root, "server/generated"), path.join(target, "server/generated")]);

// A local project link with the framework, so the CLI needs no token and no `vercel pull`.
mkdirSync(path.join(target, ".vercel"), { recursive: true });
writeFileSync(path.join(target, ".vercel/project.json"), JSON.stringify({ projectId: "prj_local", orgId: "team_local", settings: { framework: "nextjs" } }));

const env = { ...process.env, VERCEL_TELEMETRY_DISABLED: "1", NEXT_TELEMETRY_DISABLED: "1", VERCEL_INSTALL_COMPLETED: "1" };
delete env.NEXT_DIST_DIR;
const build = spawnSync(process.execPath, [cli, "build", "--yes"], { cwd: target, env, stdio: "inherit" });
process.exit(build.status ?? 1);
