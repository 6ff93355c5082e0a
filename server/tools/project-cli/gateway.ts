import "server-only";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { z } from "zod";
import { isDatabaseUnavailable } from "@/server/kernel/errors";
import { logger } from "@/server/logger";
import { closeToolPool, openToolPool } from "@/server/tools/repository/tool-pool";
import { toolCredentialKey, verifyToolCredential } from "./credential";
import { runWriteOnce } from "./effects";
import { ToolError } from "./errors";
import { timeZoneField } from "./fields";
import { projectCliRouter, type CliOutput, type Prepared } from "./router";
import type { ToolEffectKey } from "@/server/tools/repository/tool-effects";

// The tool gateway, where project_cli calls run. The CLI child the agent spawns holds its run's
// controlled credential and this gateway's address, nothing else: no database address, no
// signing key. It sends one request (credential, module, method, zone, input) and prints the
// answer. Here the credential is checked (signature, lifetime, the run's modules), then the
// router's whitelist and the method's strict schema; only then does a handler run, on a
// connection of the gateway's own small pool, so a call never waits for a database backend to
// start and never holds a connection the run hot path needs. A write runs once per tool call
// (effects.ts): its changes commit with the record of its answer, which a repeat gets back.
//
// One gateway per server process, started on first use. It listens on a Unix socket in a fresh
// directory only this OS user can enter (a named pipe on Windows) and does not keep the process
// alive.

export const MAX_REQUEST_BYTES = 1_100_000; // a 1 MB input, its credential and names
const IDLE_TIMEOUT_MS = 30_000;
const STATEMENT_TIMEOUT_MS = 20_000;
const POOL_MAX = 8;

const cancelled = () => new ToolError("CANCELLED", "The caller went away before the tool finished");

const requestSchema = z.strictObject({
  credential: z.string().max(4_096),
  module: z.string().min(1).max(64),
  method: z.string().min(1).max(64),
  time_zone: z.string().max(64).optional(),
  input: z.unknown(),
});

type ToolRequest = z.infer<typeof requestSchema>;

// On globalThis: Next may load this module more than once in one process.
const slot = Symbol.for("dispatch.toolGateway");
const gateway = ((globalThis as unknown as { [slot]?: { address?: Promise<string>; pool?: pg.Pool } })[slot] ??= {});

/** The gateway's address (a socket path) for DISPATCH_TOOL_GATEWAY; starts it on first use. */
export function toolGatewayAddress(): Promise<string> {
  if (!gateway.address) {
    const address = listen();
    gateway.address = address;
    // A failed start is tried again by the next call.
    address.catch(() => {
      if (gateway.address === address) gateway.address = undefined;
    });
  }
  return gateway.address;
}

function listen(): Promise<string> {
  const dir = process.platform === "win32" ? null : mkdtempSync(path.join(os.tmpdir(), "dispatch-tools-"));
  const address = dir ? path.join(dir, "gateway.sock") : `\\\\?\\pipe\\dispatch-tools-${randomBytes(16).toString("hex")}`;
  const remove = () => dir && rmSync(dir, { recursive: true, force: true });
  const server = net.createServer({ allowHalfOpen: true }, serve);
  return new Promise((resolve, reject) => {
    server.once("error", (err) => {
      remove();
      reject(err);
    });
    server.listen(address, () => {
      server.unref();
      process.once("exit", remove);
      resolve(address);
    });
  });
}

function pool(): pg.Pool {
  gateway.pool ??= openToolPool({ max: POOL_MAX, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  return gateway.pool;
}

/** Closes the gateway's database connections (the server is stopping, before its database does); a later call opens them again. */
export async function closeToolGateway(): Promise<void> {
  const open = gateway.pool;
  gateway.pool = undefined;
  if (open) await closeToolPool(open);
}

/** One request per connection: the client half-closes after it, the answer is one JSON line. */
function serve(socket: net.Socket): void {
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  // A child killed mid-call (its run cancelled) only closes its own connection.
  socket.on("error", () => {});
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  // The child went away before its answer (its run was cancelled, or it timed out).
  const gone = new AbortController();
  socket.once("close", () => gone.abort());
  const answer = (output: CliOutput) => {
    if (!socket.destroyed) socket.end(`${JSON.stringify(output)}\n`);
  };
  socket.on("data", (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size <= MAX_REQUEST_BYTES) return void chunks.push(chunk);
    refused = true;
    chunks.length = 0;
    answer({ ok: false, module: null, method: null, error: new ToolError("INPUT_TOO_LARGE", `A project_cli request may be at most ${MAX_REQUEST_BYTES} bytes`).toBody() });
  });
  socket.on("end", () => {
    if (!refused) void handleToolRequest(Buffer.concat(chunks).toString("utf8"), gone.signal).then(answer);
  });
}

/**
 * Checks and runs one request; every failure is an answer, never a throw. When `signal` aborts
 * while the handler runs, its connection is closed, so PostgreSQL rolls back what it had not
 * committed, as when the child held the connection itself and was killed.
 */
export async function handleToolRequest(raw: string, signal?: AbortSignal): Promise<CliOutput> {
  let request: ToolRequest;
  try {
    request = requestSchema.parse(JSON.parse(raw));
  } catch {
    const error = new ToolError("BAD_REQUEST", "The tool gateway takes one JSON object: credential, module, method, time_zone (optional) and input");
    return { ok: false, module: null, method: null, error: error.toBody() };
  }
  const { module, method } = request;
  let claims: ReturnType<typeof verifyToolCredential>;
  try {
    claims = verifyToolCredential(request.credential, { key: toolCredentialKey() });
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, module, method, error: err.toBody() };
    logger.error({ err, module, method }, "project_cli credential check failed");
    return { ok: false, module, method, error: new ToolError("INTERNAL", "project_cli failed unexpectedly").toBody() };
  }
  const zone = timeZoneField().safeParse(request.time_zone ?? "UTC");
  if (!zone.success) return { ok: false, module, method, error: new ToolError("USAGE", "--time-zone needs an IANA time zone, e.g. Asia/Shanghai").toBody() };
  const prepared = projectCliRouter.prepare({ module, method, input: request.input, allowedModules: claims.modules });
  if ("failed" in prepared) return prepared.failed;
  const key = { userId: claims.userId, runId: claims.toolCall.runId, toolCallId: claims.toolCall.id };
  return runPreparedCall({ module, method, prepared, key, timeZone: zone.data, signal });
}

/**
 * Runs a call that passed the router's checks for a known caller (a verified credential, or an
 * API key's MCP call: server/mcp-serve), on a connection of the gateway's pool; a write once per
 * `key`. Every failure is an answer, never a throw.
 */
export async function runPreparedCall(call: {
  module: string;
  method: string;
  prepared: Exclude<Prepared, { failed: CliOutput }>;
  key: ToolEffectKey;
  timeZone: string;
  signal?: AbortSignal;
}): Promise<CliOutput> {
  const { module, method, prepared, key, signal } = call;
  const fail = (error: ToolError): CliOutput => ({ ok: false, module, method, error: error.toBody() });
  try {
    if (signal?.aborted) return fail(cancelled());
    const db = await pool().connect();
    let released = false;
    // A connection that failed or was abandoned mid-handler may be in any state: closed, not reused.
    const release = (close: boolean) => {
      if (released) return;
      released = true;
      db.release(close);
    };
    const abandon = () => release(true);
    signal?.addEventListener("abort", abandon, { once: true });
    let failed = false;
    try {
      // Gone while the connection was being taken.
      if (signal?.aborted) throw cancelled();
      const ctx = { userId: key.userId, db, timeZone: call.timeZone };
      if (prepared.kind === "read") return await prepared.run(ctx);
      return await runWriteOnce({ key, action: prepared.action, input: prepared.input, ctx, run: prepared.run });
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      signal?.removeEventListener("abort", abandon);
      release(failed);
    }
  } catch (err) {
    if (err instanceof ToolError) return fail(err);
    if (signal?.aborted) return fail(cancelled());
    if (isDatabaseUnavailable(err)) {
      return fail(new ToolError("SERVICE_UNAVAILABLE", "The database is unavailable. Try again shortly.", { retryable: true }));
    }
    logger.error({ err, module, method }, "project_cli call failed");
    return fail(new ToolError("INTERNAL", "project_cli failed unexpectedly"));
  }
}
