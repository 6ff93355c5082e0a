// Builds the project_cli executable into bin/ (gitignored):
//   project-cli.cjs           the launcher the server runs (server/tools/project-cli/launcher.ts)
//   project-cli.bundle.cjs    server/tools/project-cli/cli.ts with its dependencies inlined
//   project-cli.bundle.cache  V8's code cache for the bundle, made by loading it and rehearsing calls
//   project-cli.meta.json     the sources and Node version the build came from
// The three files belong together; deploy bin/ whole. CommonJS throughout: an ES module costs a
// call several milliseconds more to start.
//   node scripts/build-cli.mjs             build
//   node scripts/build-cli.mjs --if-stale  build only when stale (see isStale)
// The server runs the second form on first use.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const source = "server/tools/project-cli";
const bin = path.join(root, "bin");
const out = {
  launcher: path.join(bin, "project-cli.cjs"),
  bundle: path.join(bin, "project-cli.bundle.cjs"),
  cache: path.join(bin, "project-cli.bundle.cache"),
  meta: path.join(bin, "project-cli.meta.json"),
};
const CACHE_TIMEOUT_MS = 30_000;

function mtime(file) {
  try {
    return statSync(path.join(root, file)).mtimeMs;
  } catch {
    return null;
  }
}

// Sources that are gone (a deployment without them) cannot be rebuilt from, so they do not
// count. Without its code cache, or with one V8 refuses (made by another Node version), the CLI
// still runs, only slower: worth a rebuild only where the sources are at hand.
function isStale() {
  if (![out.launcher, out.bundle, out.meta].every((file) => existsSync(file))) return true;
  const built = statSync(out.bundle).mtimeMs;
  const meta = JSON.parse(readFileSync(out.meta, "utf8"));
  if (!Array.isArray(meta.inputs)) return true;
  if (existsSync(path.join(root, source, "cli.ts")) && (meta.node !== process.version || !existsSync(out.cache))) return true;
  return [...meta.inputs, "scripts/build-cli.mjs", "package-lock.json"].some((file) => (mtime(file) ?? 0) > built);
}

// Two of pg's runtime choices cost every call: it picks its socket implementation by probing for
// Cloudflare Workers with `new Response(...)`, which on Node 20 loads undici (~15 ms), and it runs
// SCRAM authentication through WebCrypto (several ms of thread-pool round trips per connection).
// The CLI only runs on Node: the probe is cut and the crypto helpers are pg-crypto.ts, the same
// functions on Node's synchronous crypto. Both checks fail the build if pg's code moved on.
const pgCrypto = path.join(root, source, "pg-crypto.ts");
const exportedNames = (code, pattern) => [...code.matchAll(pattern)].map((m) => m[1]).sort().join(",");

const pgOnNode = {
  name: "pg-on-node",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, ({ path: file }) => {
      const code = readFileSync(file, "utf8");
      const probe = "if (isCloudflareRuntime())";
      if (code.split(probe).length !== 2) throw new Error(`${file} no longer has \`${probe}\`: update the pg-on-node plugin in scripts/build-cli.mjs`);
      return { contents: code.replace(probe, "if (false)"), loader: "js" };
    });
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]crypto[\\/]utils\.js$/ }, ({ path: file }) => {
      const theirs = exportedNames(readFileSync(file, "utf8").match(/module\.exports = \{([^}]*)\}/)?.[1] ?? "", /(\w+)/g);
      const ours = exportedNames(readFileSync(pgCrypto, "utf8"), /^export (?:async )?function (\w+)/gm);
      if (theirs !== ours) throw new Error(`${file} exports ${theirs || "nothing we recognise"}, pg-crypto.ts ${ours}: update pg-crypto.ts`);
      return { contents: `module.exports = require(${JSON.stringify(pgCrypto)});`, loader: "js", resolveDir: root };
    });
  },
};

// zod's `z` export is a namespace object, so `import { z } from "zod"` makes esbuild keep all of
// zod (~450 KB, ~10 ms of every call to evaluate); `import * as z from "zod"` reaches the same
// bindings and lets it keep only what the CLI uses. Sources here read as the second form.
const zodTreeShaken = {
  name: "zod-tree-shaken",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, ({ path: file }) => {
      if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const code = readFileSync(file, "utf8");
      const rewritten = code.replace(/^import \{ z(?:, ([^}]*))? \} from "zod";$/gm, (_, rest) =>
        rest ? `import * as z from "zod";\nimport { ${rest} } from "zod";` : `import * as z from "zod";`,
      );
      return { contents: rewritten, loader: "ts" };
    });
  },
};

async function bundle(esbuild, entry, plugins = []) {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [`${source}/${entry}`],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // `server-only` resolves to its empty module under this condition, as in the server.
    conditions: ["react-server"],
    external: ["pg-native"],
    minify: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "warning",
    plugins,
  });
  return { code: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs).filter((file) => !file.startsWith("node_modules/")) };
}

// In a child with a bare environment, as the server runs the CLI: V8 refuses a cache made under
// other flags, and NODE_OPTIONS from the build's environment would change them.
function writeCodeCache(writer, bundleFile, cacheFile) {
  const result = spawnSync(process.execPath, [writer, bundleFile, cacheFile, out.bundle], {
    env: { NODE_ENV: "production", TZ: "UTC" },
    stdio: ["ignore", "ignore", "pipe"],
    timeout: CACHE_TIMEOUT_MS,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`Loading the project_cli bundle to cache its code failed (exit ${result.status ?? result.signal}): ${(result.stderr ?? "").trim()}`);
}

async function build() {
  const esbuild = await import("esbuild");
  const [cli, launcher, writer] = await Promise.all([
    bundle(esbuild, "cli.ts", [pgOnNode, zodTreeShaken]),
    bundle(esbuild, "launcher.ts"),
    bundle(esbuild, "write-code-cache.ts"),
  ]);
  const id = createHash("sha256").update(cli.code).digest("hex");
  mkdirSync(bin, { recursive: true });
  // Everything is written aside and renamed into place, so a concurrent call never reads half a
  // file; a cache and a bundle from different builds do not match ids and the cache is skipped.
  const tmp = (file) => `${file}.${process.pid}.tmp`;
  const writerFile = path.join(bin, `.project-cli-cache-writer.${process.pid}.cjs`);
  try {
    writeFileSync(tmp(out.bundle), `// project-cli ${id}\n${cli.code}`);
    writeFileSync(writerFile, writer.code);
    writeCodeCache(writerFile, tmp(out.bundle), tmp(out.cache));
    writeFileSync(tmp(out.launcher), `#!/usr/bin/env node\n${launcher.code}`, { mode: 0o755 });
    const inputs = [...new Set([...cli.inputs, ...launcher.inputs, ...writer.inputs])].sort();
    writeFileSync(tmp(out.meta), `${JSON.stringify({ node: process.version, inputs }, null, 2)}\n`);
    for (const file of [out.meta, out.cache, out.bundle, out.launcher]) renameSync(tmp(file), file);
  } finally {
    for (const file of [writerFile, ...Object.values(out).map(tmp)]) rmSync(file, { force: true });
  }
}

if (!process.argv.includes("--if-stale") || isStale()) await build();
