import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

// A minimal stand-in for Vercel's platform in front of a `vercel build` output: a router that
// sends each request to the function built for its path (the Build Output API's functions/ tree,
// dynamic segments included), and function instances started on demand (function-instance.mjs)
// from a read-only mount of their code, each with a time limit per invocation. An instance stopped
// by its limit is replaced by a new one (a cold start) on the next request. A function's code is
// what a deployment uploads: the files in its .func folder, and the project files its
// .vc-config.json's filePathMap names (the traced dependencies, bin/project-cli.cjs...).

export type Platform = {
  url: string;
  /** Instances started so far, per function folder (a cold start adds one). */
  starts(): number;
  /** Instances stopped by an invocation's time limit. */
  cut(): number;
  close(): Promise<void>;
};

type Instance = { child: ChildProcess; port: Promise<number> };
type Match = { funcDir: string; matchedPath: string; params: [string, string][] };

/**
 * The function serving `pathname`: exact segments first, then `[param]`, then `[...param]`. Its
 * parameters go as Next's `nxtP<name>` query parameters, as the platform's routes (config.json) pass them.
 */
function findFunction(functionsDir: string, pathname: string): Match | null {
  const segments = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const walk = (dir: string, i: number, matched: string[], params: [string, string][]): Match | null => {
    const entries = existsSync(dir) ? readdirSync(dir) : [];
    const seg = segments[i]!;
    const last = i === segments.length - 1;
    const dynamic = [...new Set(entries.map((e) => e.replace(/\.func$/, "")).filter((e) => /^\[[^.].*\]$/.test(e)))];
    for (const name of [seg, ...dynamic]) {
      const taken: [string, string][] = name === seg ? params : [...params, [`nxtP${name.slice(1, -1)}`, seg]];
      if (last && entries.includes(`${name}.func`)) return { funcDir: path.join(dir, `${name}.func`), matchedPath: `/${[...matched, name].join("/")}`, params: taken };
      if (!last && entries.includes(name)) {
        const found = walk(path.join(dir, name), i + 1, [...matched, name], taken);
        if (found) return found;
      }
    }
    const catchAll = entries.find((e) => /^\[\.\.\..+\]\.func$/.test(e));
    if (!catchAll) return null;
    const name = catchAll.replace(/\.func$/, "");
    return { funcDir: path.join(dir, catchAll), matchedPath: `/${[...matched, name].join("/")}`, params: [...params, [`nxtP${name.slice(4, -1)}`, segments.slice(i).join("/")]] };
  };
  return segments.length === 0 ? null : walk(functionsDir, 0, [], []);
}

/** Lays out a function's code as the platform deploys it, in a folder of its own. */
function stageFunction(funcDir: string, projectDir: string, into: string): string {
  const config = JSON.parse(readFileSync(path.join(funcDir, ".vc-config.json"), "utf8")) as { filePathMap?: Record<string, string> };
  mkdirSync(into, { recursive: true });
  cpSync(funcDir, into, { recursive: true, verbatimSymlinks: true });
  const entries = Object.entries(config.filePathMap ?? {});
  const same = entries.filter(([to, from]) => to === from).map(([file]) => file);
  // Symbolic links (Next's aliases of external packages) are kept as links, as the upload keeps them.
  execFileSync("sh", ["-c", `tar -C "$0" -c --null -T - -f - | tar -C "$1" -x -f -`, projectDir, into], { input: same.join("\0") });
  for (const [to, from] of entries.filter(([a, b]) => a !== b)) {
    mkdirSync(path.dirname(path.join(into, to)), { recursive: true });
    cpSync(path.join(projectDir, from), path.join(into, to), { recursive: true, verbatimSymlinks: true });
  }
  return into;
}

export async function startPlatform(opts: {
  output: string;
  /** The functions' environment; given the platform's own URL (a deployment knows its own: VERCEL_URL). */
  env: (platformUrl: string) => Record<string, string>;
  timeLimitMs: number;
  /** The request context tells each invocation its deadline (else the app assumes the routes' maxDuration). */
  tellsDeadline?: boolean;
}): Promise<Platform> {
  const functionsDir = path.join(opts.output, "functions");
  const instances = new Map<string, Instance>();
  let starts = 0;
  let cut = 0;
  const instanceScript = path.join(import.meta.dirname, "function-instance.mjs");

  const projectDir = path.resolve(opts.output, "../..");
  const stagingRoot = mkdtempSync(path.join(os.tmpdir(), "dispatch-functions-"));
  const staged = new Map<string, string>();

  const instanceFor = (funcDir: string): Instance => {
    const real = realpathSync(funcDir);
    let code = staged.get(real);
    if (!code) {
      code = stageFunction(real, projectDir, path.join(stagingRoot, String(staged.size)));
      staged.set(real, code);
    }
    const running = instances.get(real);
    if (running && running.child.exitCode === null && running.child.signalCode === null) return running;
    starts++;
    // The function's code folder is read-only, as on the platform: a private mount namespace
    // with the build output bound read-only over itself.
    const child = spawn(
      "unshare",
      ["-m", "--propagation", "private", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$1" "$2" "$0" "$3" "$4"', code, process.execPath, instanceScript, String(opts.timeLimitMs), opts.tellsDeadline ? "tell" : ""],
      { stdio: ["ignore", "inherit", "inherit", "ipc"], env: { ...process.env, ...opts.env(platformUrl), VERCEL: "1", VERCEL_URL: new URL(platformUrl).host, VERCEL_ENV: "production", VERCEL_REGION: "dev0", NODE_ENV: "production" } },
    );
    child.once("exit", (_code, signal) => {
      if (signal === "SIGKILL") cut++;
    });
    const port = new Promise<number>((resolve, reject) => {
      child.once("message", (m: { port: number }) => resolve(m.port));
      child.once("exit", (code, signal) => reject(new Error(`the function instance exited during start-up (${signal ?? code})`)));
    });
    const instance = { child, port };
    instances.set(real, instance);
    return instance;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://platform");
    const match = findFunction(functionsDir, url.pathname);
    if (!match) {
      res.writeHead(404).end(`no function for ${url.pathname}`);
      return;
    }
    const instance = instanceFor(match.funcDir);
    instance.port.then(
      (port) => {
        for (const [name, value] of match.params) url.searchParams.set(name, value);
        const upstream = http.request(
          { host: "127.0.0.1", port, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...req.headers, "x-matched-path": match.matchedPath, "x-forwarded-proto": "https", "x-forwarded-host": req.headers.host ?? "" } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            // The instance stopped mid-answer: the client's connection is cut, as the platform's would be.
            answer.once("aborted", () => res.destroy());
            answer.once("error", () => res.destroy());
          },
        );
        upstream.once("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end("the function instance stopped")));
        req.pipe(upstream);
      },
      (err: Error) => res.writeHead(502).end(err.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const platformUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: platformUrl,
    starts: () => starts,
    cut: () => cut,
    async close() {
      for (const { child } of instances.values()) child.kill("SIGKILL");
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(stagingRoot, { recursive: true, force: true });
    },
  };
}
