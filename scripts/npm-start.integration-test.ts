import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { baseUrl, bearer } from "@/test/helpers";
import { alive, descendants } from "@/test/process-tree";
import { paced, runInput } from "@/test/runs";
import { readSse } from "@/test/sse";
import { freePort, startEmbeddedPostgres } from "./lib/embedded-postgres";

// `npm start` as a user or a service manager runs it: npm, then one server process, with the
// embedded PostgreSQL as its child. A stop signal goes to npm's pid only, as systemd, Docker or a
// supervisor send it.

const root = path.resolve(import.meta.dirname, "..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "dispatch-npm-start-"));
const postmasterPidFile = path.join(dataDir, "pg", "postmaster.pid");
const running = new Set<ChildProcess>();
afterAll(async () => {
  // Only after a failed test: stop what it left, the way under test.
  for (const npm of running) {
    if (npm.exitCode !== null || npm.signalCode !== null) continue;
    const exited = new Promise((resolve) => npm.once("exit", resolve));
    npm.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: "",
  AUTH_SECRET: "",
  DATA_DIR: dataDir,
  LLM_BASE_URL: inject("llmBaseUrl"),
  LLM_API_KEY: inject("llmApiKey"),
  LLM_MODEL: inject("llmModel"),
  LOG_LEVEL: "info",
  npm_config_update_notifier: "false",
});

const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Started = { npm: ChildProcess; port: number; pgPort: number; output: () => string; exited: Promise<number | null> };

async function launch(hostname: string, port?: number): Promise<Started> {
  port ??= await freePort();
  const pgPort = await freePort();
  let output = "";
  const npm = spawn("npm", ["start"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env(), PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), HOSTNAME: hostname },
  });
  running.add(npm);
  npm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
  return { npm, port, pgPort, output: () => output, exited };
}

async function npmStart(hostname: string): Promise<Started> {
  const started = await launch(hostname);
  let gone = false;
  void started.exited.then(() => (gone = true));
  await waitUntil(
    async () => {
      if (gone) throw new Error(`npm start exited: ${started.output()}`);
      return (await fetch(`http://127.0.0.1:${started.port}/api/health`)).status === 200;
    },
    `npm start healthy (output: ${started.output()})`,
    120_000,
  ).catch((err: Error) => {
    throw new Error(err.message.includes("exited") ? err.message : `${err.message}\n${started.output()}`);
  });
  return started;
}

/** The tree under npm: the server, a plain node process (no tsx, no set-up left), whose child is PostgreSQL. */
function shapeOf({ npm }: Started) {
  const tree = descendants(npm.pid!);
  const children = tree.filter((p) => p.ppid === npm.pid);
  expect(children.map((p) => p.command)).toEqual([expect.stringMatching(/^\S*node scripts\/start\.mjs$/)]);
  expect(tree.filter((p) => /tsx|esbuild|start-setup/.test(p.command))).toEqual([]);
  const postmasterPid = Number(readFileSync(postmasterPidFile, "utf8").split("\n")[0]);
  expect(tree.find((p) => p.pid === postmasterPid)?.ppid).toBe(children[0]!.pid);
  return { server: children[0]!.pid, postmaster: postmasterPid };
}

/** Sends `signal` to npm alone and checks that everything under it ended and let go of its ports. */
async function stopsCleanly({ npm, port, pgPort, exited, output }: Started, signal: NodeJS.Signals): Promise<void> {
  const tree = descendants(npm.pid!);
  npm.kill(signal);
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 30_000))]);
  expect(code).toBe(0);
  expect(tree.filter((p) => alive(p.pid))).toEqual([]);
  expect(await portFree(port)).toBe(true);
  expect(await portFree(pgPort)).toBe(true);
  // The server closed its connections before its database stopped.
  expect(output()).not.toContain("connection lost");
}

async function apiKeyFor(email: string): Promise<string> {
  const admin = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/admin.ts", "apikey:create", "--email", email], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: env(),
  });
  let out = "";
  admin.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  expect(await new Promise((resolve) => admin.once("exit", resolve))).toBe(0);
  return out.trim().split("\n").at(-1)!;
}

/** How each execution of the run ended, read from the cluster once `npm start` has stopped it. */
async function attemptsOf(runId: string): Promise<(string | null)[]> {
  const db = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const client = new pg.Client({ connectionString: db.url });
  try {
    await client.connect();
    const { rows } = await client.query<{ end_reason: string | null }>(
      "select a.end_reason from run_attempts a join runs r on r.id = a.run_id where r.run_id = $1 order by a.attempt",
      [runId],
    );
    return rows.map((r) => r.end_reason);
  } finally {
    await client.end();
    await db.stop();
  }
}

describe("npm start", { timeout: 240_000 }, () => {
  it("is npm and one server that owns PostgreSQL, listens only where HOSTNAME says, keeps the password out of its output, and on SIGTERM to npm hands its run back before the database stops", async () => {
    baseUrl(); // needs a production build
    const started = await npmStart("127.0.0.1");
    shapeOf(started);
    // Every 127/8 address reaches this machine; a server bound to 127.0.0.1 alone refuses the others.
    expect(await accepts("127.0.0.2", started.port)).toBe(false);

    const credentials = path.join(dataDir, "initial-admin.txt");
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const password = /password: (\S+)/.exec(readFileSync(credentials, "utf8"))![1]!;
    expect(started.output()).toContain(credentials);
    expect(started.output()).not.toContain(password);

    // A run streaming when the stop comes, after a project_cli call (the tool gateway's own
    // connections are closed before the database stops too).
    const toolCall = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]]';
    const body = runInput({}, paced(100, `${toolCall} ${Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ")}`));
    const res = await fetch(`http://127.0.0.1:${started.port}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(await apiKeyFor("admin@dispatch.local")), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const frames = readSse(res);
    for (let answered = false; !answered; ) {
      const { value, done } = await frames.next();
      expect(done).toBe(false);
      answered = (JSON.parse(value!.data) as { type: string }).type === "TEXT_MESSAGE_CONTENT";
    }
    const rest = (async () => {
      for await (const frame of frames) void frame;
    })().catch(() => undefined);

    await stopsCleanly(started, "SIGTERM");
    await rest;
    // Written by the stopping server: the database was still up.
    expect(await attemptsOf(body.runId)).toEqual(["handed_off"]);
  });

  it("takes a HOSTNAME that is this machine's name for no choice; after a SIGKILL, the next start stops the PostgreSQL left running, stops its own when the server cannot listen, and stops on SIGINT", async () => {
    const killed = await npmStart(os.hostname());
    expect(await accepts("127.0.0.2", killed.port)).toBe(true);
    expect(killed.output()).toContain(`HOSTNAME is this machine's name (${os.hostname()})`);
    const { server, postmaster } = shapeOf(killed);
    process.kill(server, "SIGKILL");
    expect(await killed.exited).not.toBe(0);
    expect(alive(postmaster)).toBe(true);

    const taken = net.createServer();
    const busyPort = await freePort();
    await new Promise<void>((resolve) => taken.listen(busyPort, "127.0.0.1", resolve));
    try {
      const failed = await launch("127.0.0.1", busyPort);
      expect(await failed.exited).toBe(1);
      expect(failed.output()).toContain("its last server left running");
      expect(failed.output()).toContain(`The server could not listen on port ${busyPort}`);
      expect(alive(postmaster)).toBe(false);
      expect(existsSync(postmasterPidFile)).toBe(false);
      expect(await portFree(failed.pgPort)).toBe(true);
    } finally {
      taken.close();
    }

    const again = await npmStart("127.0.0.1");
    shapeOf(again);
    await stopsCleanly(again, "SIGINT");
  });
});
