// Bundles the project_cli executable: server/tools/project-cli/cli.ts -> bin/project-cli.mjs,
// one ESM file with its dependencies inlined, so a tool call starts fast.
//   node scripts/build-cli.mjs             build
//   node scripts/build-cli.mjs --if-stale  build only when a source is newer than the bundle
// The server runs the second form on first use; bin/project-cli.meta.json lists the sources.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const entry = "server/tools/project-cli/cli.ts";
const outFile = path.join(root, "bin/project-cli.mjs");
const metaFile = path.join(root, "bin/project-cli.meta.json");

function mtime(file) {
  try {
    return statSync(path.join(root, file)).mtimeMs;
  } catch {
    return null;
  }
}

// Sources that are gone (a deployment without them) cannot be rebuilt from, so they do not count.
function isStale() {
  if (!existsSync(outFile) || !existsSync(metaFile)) return true;
  const built = statSync(outFile).mtimeMs;
  const { inputs } = JSON.parse(readFileSync(metaFile, "utf8"));
  return [...inputs, "scripts/build-cli.mjs", "package-lock.json"].some((file) => (mtime(file) ?? 0) > built);
}

async function build() {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // `server-only` resolves to its empty module under this condition, as in the server.
    conditions: ["react-server"],
    external: ["pg-native"],
    minify: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "warning",
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith("node_modules/"));
  mkdirSync(path.dirname(outFile), { recursive: true });
  // Written aside and renamed, so a concurrent reader never runs half a file.
  const tmp = `${outFile}.${process.pid}.tmp`;
  writeFileSync(tmp, result.outputFiles[0].contents, { mode: 0o755 });
  writeFileSync(`${metaFile}.${process.pid}.tmp`, `${JSON.stringify({ entry, inputs }, null, 2)}\n`);
  renameSync(`${metaFile}.${process.pid}.tmp`, metaFile);
  renameSync(tmp, outFile);
}

if (!process.argv.includes("--if-stale") || isStale()) await build();
