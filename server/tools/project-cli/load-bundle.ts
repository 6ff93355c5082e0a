import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Script } from "node:vm";

// Evaluates the bundled CLI (a CommonJS file) the way require() would, but through vm.Script so
// V8 can start from the code cache the build wrote: compiling the bundle (~210 KB of pg, zod and
// the CLI) would otherwise be a good part of every call. The cache is only a speed-up: when it
// is missing, belongs to another build of the bundle, or V8 rejects it (another Node version or
// flags), the bundle is compiled from source as usual.
//
// Both files start with the same id line (`// project-cli <sha256 of the bundle>`), so a cache is
// never applied to a source it was not made from: V8 itself only compares the source's length.

export type CliBundle = { main(argv: string[]): Promise<void>; rehearse(connectionString: string): Promise<void> };

export type LoadedBundle = {
  exports: CliBundle;
  script: Script;
  /** The id line the bundle starts with (and its cache must start with), newline included. */
  header: string;
  /** undefined: no usable cache was found; true: V8 refused it; false: it was used. */
  cacheRejected: boolean | undefined;
};

/**
 * Reads and evaluates the bundle. `filename` is the name stack traces use; a cache keeps the
 * name it was made under, so the build makes it from a temporary file under the final name.
 */
export function loadBundle(bundleFile: string, cacheFile: string | null, filename = bundleFile): LoadedBundle {
  const source = readFileSync(bundleFile, "utf8");
  const header = source.slice(0, source.indexOf("\n") + 1);
  const cachedData = cacheFile && header.startsWith("// project-cli ") ? readCache(cacheFile, header) : undefined;
  // The CommonJS wrapper, so the bundle sees exports/require/module as under require().
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, cachedData });
  const mod = { exports: {} as CliBundle };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(mod.exports, mod.exports, createRequire(filename), mod, filename, path.dirname(filename));
  return { exports: mod.exports, script, header, cacheRejected: cachedData ? script.cachedDataRejected === true : undefined };
}

function readCache(cacheFile: string, header: string): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  return cache.length > header.length && cache.toString("latin1", 0, header.length) === header ? cache.subarray(header.length) : undefined;
}
