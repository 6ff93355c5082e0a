import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, runCompleted } from "@/sdk/runner/results";
import { startRunners } from "@/examples/runners/start";
import { events, fact, ofType, rememberTurn } from "@/server/approvals/test-support";
import { postRun, runInput } from "@/test/runs";
import { freePort } from "./lib/embedded-postgres";

const root = path.resolve(import.meta.dirname, "..");

// Every command must exit on its own once its work is done: its result (on stdout) is the last
// thing it prints, so one still running this long after that is held open by something it left
// behind (the bound only turns a hang into a failure; an idle pool would hold it for 30 s).
const EXIT_AFTER_OUTPUT_MS = 20_000;

// Asynchronous on purpose: a synchronous spawn would block this worker's event loop, and its
// pooled keep-alive connections to the server would go stale unnoticed.
function admin(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return adminWithEnv({ ...process.env }, ...args);
}

function adminWithEnv(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), "--conditions=react-server", "scripts/admin.ts", ...args], {
      cwd: root,
      env: { ...env, LOG_LEVEL: "silent" },
    });
    let [stdout, stderr] = ["", ""];
    let lingering: NodeJS.Timeout | undefined;
    // Start-up on a busy machine is bounded loosely; the time after the result is what matters.
    const startUp = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const resultSeen = () => {
      clearTimeout(startUp);
      clearTimeout(lingering);
      lingering = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`admin ${args[0]} was still running ${EXIT_AFTER_OUTPUT_MS} ms after its result:\n${stdout}${stderr}`));
      }, EXIT_AFTER_OUTPUT_MS);
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      resultSeen();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => {
      clearTimeout(startUp);
      clearTimeout(lingering);
      resolve({ status: code ?? 1, stdout, stderr });
    });
  });
}

describe("npm run admin", () => {
  const email = `cli-${Date.now()}@test.dispatch`;

  it("creates a user, then an API key printed as the last line, which authenticates", { timeout: 180_000 }, async () => {
    const created = await admin("user:create", "--email", email, "--password", "cli-password-1");
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(`Created user ${email}`);

    const key = await admin("apikey:create", "--email", email);
    expect(key.status).toBe(0);
    const lastLine = key.stdout.trim().split("\n").at(-1)!;
    expect(lastLine).toMatch(/^dsp_[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${baseUrl()}/api/v1/me`, { headers: bearer(lastLine) });
    expect(await me.json()).toMatchObject({ email, role: "user" });

    const list = await admin("apikey:list", "--email", email);
    const row = list.stdout.split("\n").find((line) => line.includes(lastLine.slice(0, 12)));
    expect(row).toContain("active");
    const id = row!.split(/\s+/)[0]!;
    expect((await admin("apikey:revoke", "--id", id)).status).toBe(0);
    expect((await fetch(`${baseUrl()}/api/v1/me`, { headers: bearer(lastLine) })).status).toBe(401);

    // A one-time password, printed as the last line: the old password stops working, the new
    // one signs in to a session that must choose its own password first.
    const reset = await admin("user:reset-password", "--email", email);
    expect(reset.status).toBe(0);
    const oneTime = reset.stdout.trim().split("\n").at(-1)!;
    expect(oneTime).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
    expect(await signInOverHttp(email, "cli-password-1")).toBeNull();
    const session = await signInOverHttp(email, oneTime);
    expect((await fetch(`${baseUrl()}/api/v1/me`, { headers: { cookie: session! } })).status).toBe(403);
    const unknown = await admin("user:reset-password", "--email", "nobody@test.dispatch");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("No user with email nobody@test.dispatch");

    // Deactivated (the email alone is enough), the user cannot sign in; reactivated, they can.
    const off = await admin("user:deactivate", email);
    expect(off.status).toBe(0);
    expect(off.stdout).toContain(`Deactivated ${email}`);
    expect(await signInOverHttp(email, oneTime)).toBeNull();
    const on = await admin("user:reactivate", "--email", email);
    expect(on.status).toBe(0);
    expect(on.stdout).toContain(`Reactivated ${email}`);
    expect(await signInOverHttp(email, oneTime)).not.toBeNull();
  });

  it("exits on its own with the embedded database too, and leaves no PostgreSQL running", { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "dispatch-cli-embedded-"));
    try {
      const { DATABASE_URL: _external, ...withoutDatabase } = process.env;
      const env = { ...withoutDatabase, DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
      const created = await adminWithEnv(env, "user:create", "--email", email, "--password", "cli-password-1");
      expect(created.status).toBe(0);
      expect(created.stdout).toContain(`Created user ${email}`);
      expect(existsSync(path.join(dataDir, "pg", "postmaster.pid"))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("explains bad input and exits non-zero", { timeout: 180_000 }, async () => {
    const dup = await admin("user:create", "--email", email, "--password", "cli-password-1");
    expect(dup.status).toBe(1);
    expect(dup.stderr).toContain("already exists");
    const short = await admin("user:create", "--email", "x@test.dispatch", "--password", "short");
    expect(short.status).toBe(1);
    expect(short.stderr).toContain("at least 8 characters");
    const unknown = await admin("frobnicate");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("Unknown command: frobnicate");
    const missing = await admin("apikey:create");
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("needs --email");
    const badId = await admin("apikey:revoke", "--id", "nope");
    expect(badId.status).toBe(1);
    expect(badId.stderr).toContain("API key not found");
  });

  it("sets a key that approves its own writes and a user's approval policy, and runs follow them", { timeout: 180_000 }, async () => {
    const user = await createTestUser();
    // The outcome of a run whose model asks for a memory write: "interrupt" when it waits for a person.
    const write = async (apiKey: string) => {
      const key = `cli_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
      const list = await events(await postRun(apiKey, runInput({}, rememberTurn(key)), { stream: true }));
      return { outcome: (ofType(list, "RUN_FINISHED")[0]!.outcome as { type: string }).type, stored: await fact(user.id, key) };
    };

    const created = await admin("apikey:create", "--email", user.email, "--self-approve");
    expect(created.status).toBe(0);
    expect(created.stdout).toContain("approving its own changes");
    const robotKey = created.stdout.trim().split("\n").at(-1)!;
    expect(await write(robotKey)).toEqual({ outcome: "success", stored: "yes" });

    const id = created.stdout.match(/Created API key ([0-9a-f-]{36})/)![1]!;
    const off = await admin("apikey:update", "--id", id, "--no-self-approve");
    expect(off.status).toBe(0);
    expect((await write(robotKey)).outcome).toBe("interrupt");
    expect((await admin("apikey:update", "--id", id, "--self-approve")).status).toBe(0);
    expect((await write(robotKey)).outcome).toBe("success");

    // The user's own key follows their policy: asked by default, never once set so.
    expect((await write(user.apiKey)).outcome).toBe("interrupt");
    const never = await admin("user:approval-policy", "--email", user.email, "--policy", "never");
    expect(never.status).toBe(0);
    expect(await write(user.apiKey)).toEqual({ outcome: "success", stored: "yes" });

    const bad = await admin("user:approval-policy", "--email", user.email, "--policy", "sometimes");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('Unknown approval policy "sometimes": use one of always, others, never');
    const noChoice = await admin("apikey:update", "--id", id);
    expect(noChoice.status).toBe(1);
    expect(noChoice.stderr).toContain("needs --self-approve or --no-self-approve");
  });

  it("registers a runner endpoint, prints its runner ids, and binds one for a user", { timeout: 180_000 }, async () => {
    const runnerId = `plugin:dispatch-tests/cli-${Date.now()}/default`;
    const secret = `cli-runner-secret-${Date.now()}`;
    const runner = await startRunners({
      secret,
      runners: [
        defineRunner({
          manifest: { id: runnerId, name: "default", label: { en_US: "CLI test" }, capabilities: {}, permissions: {}, context: {} },
          async *run() {
            yield completed("done");
            yield runCompleted();
          },
        }),
      ],
    });
    try {
      // Zero-config: no AUTH_SECRET in the environment, only the one the server generated under
      // DATA_DIR; the CLI must seal the runner secret with that one, or the server cannot use it.
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "dispatch-cli-"));
      writeFileSync(path.join(dataDir, "auth-secret"), process.env.AUTH_SECRET!);
      const { AUTH_SECRET: _omitted, ...withoutSecret } = process.env;
      const registered = await adminWithEnv({ ...withoutSecret, DATA_DIR: dataDir }, "runner:register", "--url", runner.url, "--secret", secret);
      expect(registered.stderr).toContain(": ok");
      // It says which secret it sealed with, so nobody seals a deployment's secrets with a local one unawares.
      expect(registered.stderr).toContain(`Using the AUTH_SECRET kept in ${path.join(dataDir, "auth-secret")}`);
      expect(registered.status).toBe(0);
      expect(registered.stdout.trim().split("\n")).toEqual([runnerId]);

      const user = await createTestUser();
      const bound = await admin("binding:create", "--runner", runnerId, "--email", user.email);
      expect(bound.status).toBe(0);
      expect(bound.stderr).toContain("Using AUTH_SECRET from the environment");
      expect(bound.stdout.trim().split("\n").at(-1)).toMatch(/^[0-9a-f-]{36}$/);

      const answered = await fetch(`${baseUrl()}/api/v1/agent/runs`, {
        method: "POST",
        headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ threadId: randomUUID(), runId: `cli-${randomUUID()}`, messages: [{ id: "m1", role: "user", content: "hi" }] }),
      });
      expect(await answered.text()).toContain('"delta":"done"');

      const listed = await admin("runner:list");
      expect(listed.stdout).toContain(runnerId);
      expect(listed.stdout).toContain(user.email);

      const badUrl = await admin("runner:register", "--url", "ftp://nowhere", "--secret", secret);
      expect(badUrl.status).toBe(1);
      expect(badUrl.stderr).toContain("must use http or https");
      const unknownRunner = await admin("binding:create", "--runner", "plugin:none/none/none");
      expect(unknownRunner.status).toBe(1);
      expect(unknownRunner.stderr).toContain("not found");
    } finally {
      await runner.close();
    }
  });

  it("registers an AG-UI agent with sealed headers, prints its runner id, and binds it for a user", { timeout: 180_000 }, async () => {
    // The smallest AG-UI agent: it answers every run with the authorization header it was sent.
    const seen: string[] = [];
    const agent = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const { threadId, runId } = JSON.parse(body) as { threadId: string; runId: string };
        const frames = [
          { type: "RUN_STARTED", threadId, runId },
          { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
          { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "agent here" },
          { type: "TEXT_MESSAGE_END", messageId: "a1" },
          { type: "RUN_FINISHED", threadId, runId },
        ];
        res.writeHead(200, { "content-type": "text/event-stream" }).end(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(""));
      });
    });
    await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
    try {
      const name = `cli-agent-${Date.now()}`;
      const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/agent`;
      const registered = await admin("agent:register", "--name", name, "--url", url, "--header", "Authorization: Bearer cli-agent-token", "--stall", "30");
      expect(registered.status, registered.stderr).toBe(0);
      expect(registered.stderr).toContain("events at most 30 s apart");
      expect(registered.stdout.trim().split("\n").at(-1)).toBe(`plugin:ag-ui/${name}/agent`);
      const user = await createTestUser();
      expect((await admin("binding:create", "--runner", `plugin:ag-ui/${name}/agent`, "--email", user.email)).status).toBe(0);
      const answered = await postRun(user.apiKey, runInput({}, "hi agent"), { stream: true });
      expect(await answered.text()).toContain('"delta":"agent here"');
      expect(seen).toEqual(["Bearer cli-agent-token"]);
      const badHeader = await admin("agent:register", "--name", name, "--url", url, "--header", "no colon here");
      expect(badHeader.status).toBe(1);
      expect(badHeader.stderr).toContain('--header must look like "Name: value"');
    } finally {
      await new Promise((resolve) => agent.close(resolve));
    }
  });

  it("registers a webhook endpoint for a user, printing its secret last, and lists it", { timeout: 180_000 }, async () => {
    const user = await createTestUser();
    const created = await admin("webhook:create", "--email", user.email, "--url", "http://127.0.0.1:9/hook", "--events", "run.failed,approval.decided");
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout.trim().split("\n").at(-1)).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const listed = await (await fetch(`${baseUrl()}/api/v1/webhooks`, { headers: bearer(user.apiKey) })).json();
    expect(listed).toMatchObject({ items: [{ url: "http://127.0.0.1:9/hook", events: ["run.failed", "approval.decided"], enabled: true }] });
    const list = await admin("webhook:list");
    expect(list.stdout).toContain("http://127.0.0.1:9/hook");
    const refused = await admin("webhook:create", "--email", user.email, "--url", "http://10.1.2.3/hook");
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/public address/);
  });
});
