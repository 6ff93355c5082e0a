import { writeFileSync } from "node:fs";
import { loadBundle } from "./load-bundle";
import { startRehearsalPostgres } from "./rehearsal-postgres";

// Run by scripts/build-cli.mjs in a child process:
//   node <this, bundled> <bundle> <cache file> <the bundle's final path>
// Evaluates the CLI bundle exactly as the launcher does and rehearses a few calls against a
// stand-in database, then stores V8's code cache for it, prefixed with the bundle's id line.
// Taken after they ran, the cache holds the functions a call runs compiled (V8 compiles most
// lazily, on first use).
const [bundleFile, cacheFile, finalPath] = process.argv.slice(2);
if (!bundleFile || !cacheFile || !finalPath) throw new Error("usage: write-code-cache <bundle> <cache file> <final path>");
const loaded = loadBundle(bundleFile, null, finalPath);
void startRehearsalPostgres().then(async (url) => {
  await loaded.exports.rehearse(url);
  writeFileSync(cacheFile, Buffer.concat([Buffer.from(loaded.header, "latin1"), loaded.script.createCachedData()]));
  // The rehearsal's connections close in the background; nothing else is left to do.
  process.exit(0);
});
