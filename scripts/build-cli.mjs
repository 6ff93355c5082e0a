// Builds the project_cli executable into bin/ (gitignored):
//   project-cli.cjs        server/tools/project-cli/launcher.ts (the CLI) with its code inlined
//   project-cli.meta.json  the sources and Node version the build came from
// The CLI is a thin client of the server's tool gateway (no zod, no pg), so one small CommonJS
// file starts in about the time Node itself takes. CommonJS: an ES module costs a call several
// milliseconds more to start.
//   node scripts/build-cli.mjs             build
//   node scripts/build-cli.mjs --if-stale  build only when stale (see isStale)
// The server runs the second form on first use.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = path.join(root, "bin");
const out = {
  cli: path.join(bin, "project-cli.cjs"),
  meta: path.join(bin, "project-cli.meta.json"),
};
// What earlier builds wrote beside it (a separate bundle and its V8 code cache).
const obsolete = ["project-cli.bundle.cjs", "project-cli.bundle.cache"].map((file) => path.join(bin, file));

function mtime(file) {
  try {
    return statSync(path.join(root, file)).mtimeMs;
  } catch {
    return null;
  }
}

// Sources that are gone (a deployment without them) cannot be rebuilt from, so they do not count.
function isStale() {
  if (![out.cli, out.meta].every((file) => existsSync(file))) return true;
  const built = statSync(out.cli).mtimeMs;
  const meta = JSON.parse(readFileSync(out.meta, "utf8"));
  if (!Array.isArray(meta.inputs)) return true;
  return [...meta.inputs, "scripts/build-cli.mjs", "package-lock.json"].some((file) => (mtime(file) ?? 0) > built);
}

async function build() {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ["server/tools/project-cli/launcher.ts"],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // `server-only` resolves to its empty module under this condition, as in the server.
    conditions: ["react-server"],
    minify: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith("node_modules/")).sort();
  mkdirSync(bin, { recursive: true });
  // Written aside and renamed into place, so a concurrent call never reads half a file.
  const tmp = (file) => `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp(out.cli), `#!/usr/bin/env node\n${result.outputFiles[0].text}`, { mode: 0o755 });
    writeFileSync(tmp(out.meta), `${JSON.stringify({ node: process.version, inputs }, null, 2)}\n`);
    for (const file of [out.meta, out.cli]) renameSync(tmp(file), file);
    for (const file of obsolete) rmSync(file, { force: true });
  } finally {
    for (const file of Object.values(out).map(tmp)) rmSync(file, { force: true });
  }
}

if (!process.argv.includes("--if-stale") || isStale()) await build();
