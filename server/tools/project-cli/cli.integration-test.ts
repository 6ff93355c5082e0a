import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { parseUiSchema } from "@/server/ui-schema/schema";
import { ensureProjectCliBundle } from "./cli-bundle";
import { mintToolCredential, toolCredentialKey } from "./credential";
import { handleToolRequest, MAX_REQUEST_BYTES, toolGatewayAddress } from "./gateway";
import { runProjectCli } from "./tool";

type User = Awaited<ReturnType<typeof createTestUser>>;
type Result = { code: number | null; stdout: string; stderr: string; json: Record<string, unknown> & { error?: { code: string; message: string } } };

let bundle: string;
let gateway: string;
let alice: User;
const key = () => toolCredentialKey();
const ALL = ["calendar", "contacts", "memory"];

beforeAll(async () => {
  [bundle, gateway, alice] = await Promise.all([ensureProjectCliBundle(), toolGatewayAddress(), createTestUser()]);
});

/** Runs the real executable the way the server does: argv array, no shell, no database address or key in its env. */
function cli(argv: string[], opts: { input?: unknown; env?: Record<string, string> } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...argv], {
      shell: false,
      env: { NODE_ENV: "test", DISPATCH_TOOL_GATEWAY: gateway, ...opts.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        resolve({ code, stdout, stderr, json: JSON.parse(stdout) as Result["json"] });
      } catch {
        reject(new Error(`project-cli printed no JSON (exit ${code}): ${stdout} ${stderr}`));
      }
    });
    child.stdin.end(opts.input === undefined ? "" : JSON.stringify(opts.input));
  });
}

function credentialEnv(opts: { modules?: string[]; now?: Date; userId?: string; key?: string } = {}) {
  const credential = mintToolCredential({
    userId: opts.userId ?? alice.id,
    runId: randomUUID(),
    modules: opts.modules ?? ALL,
    toolCall: { id: `call_${randomUUID()}` },
    key: opts.key ?? key(),
    now: opts.now,
  });
  return { credential, env: { DISPATCH_TOOL_CREDENTIAL: credential } };
}

/** One raw request to the gateway, as any local process could make it. */
function rawRequest(body: string | Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(gateway);
    let answer = "";
    socket.on("data", (c: Buffer) => (answer += c.toString()));
    socket.on("end", () => resolve(JSON.parse(answer) as Record<string, unknown>));
    socket.on("error", reject);
    socket.end(body);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("the project-cli executable", () => {
  it("acts for the credential's user and prints the uniform success result", async () => {
    const { env } = credentialEnv();
    const write = await cli(["memory", "update"], { env, input: { key: "favourite_editor", value: "vim" } });
    expect(write.code).toBe(0);
    expect(write.json).toMatchObject({ ok: true, module: "memory", method: "update", data: { written: [{ key: "favourite_editor", value: "vim" }] } });
    const read = await cli(["memory", "read", "--time-zone", "Asia/Shanghai"], { env });
    expect(read.json).toMatchObject({ ok: true, data: { facts: [{ key: "favourite_editor", value: "vim" }], count: 1 } });
    expect(read.stderr).toBe("");
  });

  it("answers invalid input with INVALID_ACTION_INPUT and a non-zero exit", async () => {
    const result = await cli(["calendar", "read"], { ...credentialEnv(), input: { mode: "range", start_at: "2026-04-21T00:00:00", end_at: "2026-04-22T00:00:00" } });
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({
      ok: false,
      module: "calendar",
      method: "read",
      error: { code: "INVALID_ACTION_INPUT", message: "calendar.read input does not match method schema", input_schema: { mode: "string enum(day|range|event)" } },
    });
  });

  it("refuses missing, expired, tampered and out-of-scope credentials without echoing them", async () => {
    const expired = credentialEnv({ now: new Date(Date.now() - 10 * 60_000) });
    const valid = credentialEnv();
    const [prefix, , signature] = valid.credential.split(".");
    const forgedBody = Buffer.from(JSON.stringify({ sub: randomUUID(), run: "r", mod: ALL, iat: 1, exp: 9_999_999_999, jti: "aaaaaaaaaaaa" })).toString("base64url");
    const tampered = `${prefix}.${forgedBody}.${signature}`;
    const contactsOnly = credentialEnv({ modules: ["contacts"] });
    const otherKey = credentialEnv({ key: toolCredentialKey("another secret") });
    const cases: [string, Record<string, string>, string, string][] = [
      ["missing", {}, "CREDENTIAL_MISSING", ""],
      ["expired", expired.env, "CREDENTIAL_EXPIRED", expired.credential],
      ["tampered", { DISPATCH_TOOL_CREDENTIAL: tampered }, "CREDENTIAL_INVALID", tampered],
      ["signed with another key", otherKey.env, "CREDENTIAL_INVALID", otherKey.credential],
      ["out of scope", contactsOnly.env, "MODULE_NOT_ALLOWED", contactsOnly.credential],
    ];
    for (const [what, env, code, canary] of cases) {
      const result = await cli(["memory", "read"], { env });
      expect(result.code, what).toBe(1);
      expect(result.json, what).toMatchObject({ ok: false, module: "memory", method: "read", error: { code } });
      if (canary) {
        expect(result.stdout, what).not.toContain(canary);
        expect(result.stderr, what).not.toContain(canary);
      }
      expect(result.stdout + result.stderr, what).not.toContain(key());
    }
  });

  it("takes the user only from the credential, never from flags", async () => {
    const result = await cli(["memory", "read", "--user", randomUUID()], credentialEnv());
    expect(result.code).toBe(2);
    expect(result.json).toMatchObject({ ok: false, error: { code: "USAGE" } });
  });

  it("answers an unknown time zone as a usage error", async () => {
    const result = await cli(["--time-zone", "Mars/Olympus", "memory", "read"], credentialEnv());
    expect(result.code).toBe(2);
    expect(result.json).toMatchObject({ ok: false, module: "memory", method: "read", error: { code: "USAGE", message: expect.stringContaining("IANA time zone") } });
  });

  it("says so when no gateway is named or the named one does not answer", async () => {
    const unnamed = await cli(["memory", "read"], { env: { ...credentialEnv().env, DISPATCH_TOOL_GATEWAY: "" } });
    expect(unnamed.code).toBe(1);
    expect(unnamed.json).toMatchObject({ ok: false, error: { code: "TOOL_UNAVAILABLE" } });
    const gone = await cli(["memory", "read"], { env: { ...credentialEnv().env, DISPATCH_TOOL_GATEWAY: path.join(os.tmpdir(), `no-gateway-${randomUUID()}.sock`) } });
    expect(gone.code).toBe(1);
    expect(gone.json).toMatchObject({ ok: false, module: "memory", method: "read", error: { code: "SERVICE_UNAVAILABLE", retryable: true } });
  });
});

describe("the tool gateway", () => {
  it("runs nothing for a request that is not one JSON object of the right shape", async () => {
    for (const body of ["not json", "[]", JSON.stringify({ credential: credentialEnv().credential, module: "memory", method: "read", input: {}, user_id: randomUUID() })]) {
      expect(await rawRequest(body), body).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    }
  });

  it("checks the credential itself: a request without one reaches no handler", async () => {
    expect(await rawRequest(JSON.stringify({ credential: "", module: "memory", method: "read", input: {} }))).toMatchObject({ ok: false, error: { code: "CREDENTIAL_MISSING" } });
    const forged = `dtc1.${Buffer.from(JSON.stringify({ sub: alice.id, run: "r", mod: ALL, iat: 1, exp: 9_999_999_999, jti: "aaaaaaaaaaaa" })).toString("base64url")}.AAAA`;
    expect(await rawRequest(JSON.stringify({ credential: forged, module: "memory", method: "read", input: {} }))).toMatchObject({ ok: false, error: { code: "CREDENTIAL_INVALID" } });
  });

  it("runs nothing for a caller that went away before its handler started", async () => {
    const { credential } = credentialEnv();
    const request = (method: string, input: unknown) => JSON.stringify({ credential, module: "memory", method, input });
    const before = new AbortController();
    before.abort();
    const whileConnecting = new AbortController();
    const outputs = [
      handleToolRequest(request("update", { key: "gone_before", value: "x" }), before.signal),
      handleToolRequest(request("update", { key: "gone_while_connecting", value: "x" }), whileConnecting.signal),
    ];
    whileConnecting.abort();
    for (const output of await Promise.all(outputs)) expect(output).toMatchObject({ ok: false, module: "memory", method: "update", error: { code: "CANCELLED" } });
    const read = await handleToolRequest(request("read", {}));
    expect(read.ok && JSON.stringify(read.data)).not.toMatch(/gone_/);
  });

  it("stops reading a request over its size limit", async () => {
    const answer = await rawRequest(Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x20));
    expect(answer).toMatchObject({ ok: false, error: { code: "INPUT_TOO_LARGE" } });
  });
});

describe("runProjectCli", () => {
  it("runs an action through the child process and post-processes it", async () => {
    const args = { module: "memory", method: "update", input: { facts: [{ key: "team", value: "Platform" }] } };
    const { output, toolResponseText, uiSchema } = await runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: "call_mem", args });
    expect(output).toMatchObject({ tool_name: "project_cli", tool_call_id: "call_mem", tool_call_args: args, status: "success", error: null });
    expect(output.result).toMatchObject({ module: "memory", method: "update", data: { written: [{ key: "team", value: "Platform" }] } });
    expect(JSON.parse(toolResponseText)).toEqual(output.result);
    expect(output.ui_hints).toMatchObject({ kind: "memory.facts", action: "updated", facts: [{ key: "team", value: "Platform" }] });
    expect(parseUiSchema(uiSchema).success).toBe(true);
    expect(JSON.stringify({ output, toolResponseText, uiSchema })).not.toMatch(/dtc1\.|DISPATCH_TOOL/);
  });

  it("passes the user's zone and reports partial success", async () => {
    const { output } = await runProjectCli({
      userId: alice.id,
      runId: randomUUID(),
      toolCallId: "call_cal",
      timeZone: "America/Sao_Paulo",
      args: { module: "calendar", method: "create", input: { title: "Standup", start_at: "2026-04-21T09:00:00-03:00", duration_minutes: 15, attendees: ["ghost@nowhere.example"] } },
    });
    expect(output.status).toBe("partial");
    expect(output.result?.data).toMatchObject({ event: { time_zone: "America/Sao_Paulo", start_at: "2026-04-21T09:00:00-03:00" }, not_invited: [{ email: "ghost@nowhere.example" }] });
  });

  it("enforces the run's module allow-list and the thin argument shape", async () => {
    const denied = await runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: "c1", allowedModules: ["contacts"], args: { module: "memory", method: "read", input: {} } });
    expect(denied.output).toMatchObject({ status: "failure", error: { code: "MODULE_NOT_ALLOWED" } });
    expect(JSON.parse(denied.toolResponseText)).toEqual({ status: "failure", error: denied.output.error });
    const thin = await runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: "c2", args: { module: "memory", method: "read", input: {}, user_id: alice.id } });
    expect(thin.output).toMatchObject({ status: "failure", error: { code: "INVALID_TOOL_ARGS" } });
  });

  it("refuses input over 1 MB, which the CLI stops reading", async () => {
    const args = { module: "memory", method: "update", input: { key: "notes", value: "x".repeat(1_100_000) } };
    const { output } = await runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: "c_big", args });
    expect(output).toMatchObject({ status: "failure", error: { code: "INPUT_TOO_LARGE" } });
  });

  it("never hands anything to a shell", async () => {
    const marker = path.join(os.tmpdir(), `pcli-${randomUUID().slice(0, 8)}`);
    const { output } = await runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: "c3", args: { module: `memory; touch ${marker}`, method: `$(touch ${marker})`, input: {} } });
    expect(output.error?.code).toBe("UNKNOWN_ACTION");
    expect(existsSync(marker)).toBe(false);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    const pending = runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: "c4", signal: controller.signal, args: { module: "memory", method: "read", input: {} } });
    controller.abort();
    expect((await pending).output).toMatchObject({ status: "failure", error: { code: "CANCELLED" } });
  });

  it("costs little per call through the child process (median printed)", async () => {
    const direct: number[] = [];
    const full: number[] = [];
    const { env } = credentialEnv();
    for (let i = 0; i < 15; i++) {
      let started = performance.now();
      await cli(["memory", "read"], { env });
      direct.push(performance.now() - started);
      started = performance.now();
      await runProjectCli({ userId: alice.id, runId: randomUUID(), toolCallId: `t${i}`, args: { module: "memory", method: "read", input: {} } });
      full.push(performance.now() - started);
    }
    const load = os.loadavg()[0]!.toFixed(1);
    console.log(`project_cli median per call: child process ${median(direct).toFixed(0)} ms, runProjectCli ${median(full).toFixed(0)} ms (n=15, ${os.cpus().length} CPUs, load ${load})`);
    // Generous: CI machines are shared; this catches a rebuild or a hang per call, not jitter.
    expect(median(full)).toBeLessThan(5_000);
  }, 180_000);
});
