import "server-only";
import { spawn } from "node:child_process";
import { env } from "@/server/env";
import { logger } from "@/server/logger";
import { ensureProjectCliBundle } from "./cli-bundle";
import { ToolError } from "./errors";
import { toolGatewayAddress } from "./gateway";
import { cliOutputSchema, type CliOutput } from "./router";

// Runs one project_cli call as a child process: argv array, no shell, the input on stdin, one
// JSON result on stdout. Its environment holds only the run's credential and the address of this
// process's tool gateway (gateway.ts), where the call is checked and runs: the server's own
// secrets and variables, the database address among them, are not inherited.

const MAX_OUTPUT_BYTES = 4_000_000;
const MAX_STDERR_CHARS = 8_000;

export type CliCall = {
  module: string;
  method: string;
  input: Record<string, unknown>;
  credential: string;
  timeZone?: string;
  signal?: AbortSignal;
  timeoutMs: number;
};

export async function execProjectCli(call: CliCall): Promise<CliOutput> {
  const fail = (error: ToolError): CliOutput => ({ ok: false, module: call.module, method: call.method, error: error.toBody() });
  if (call.signal?.aborted) return fail(new ToolError("CANCELLED", "The run was cancelled before the tool ran"));
  let bundle: string;
  let gateway: string;
  try {
    [bundle, gateway] = await Promise.all([ensureProjectCliBundle(), toolGatewayAddress()]);
  } catch (err) {
    logger.error({ err }, "project_cli executable or tool gateway unavailable");
    return fail(new ToolError("TOOL_UNAVAILABLE", "project_cli is not available on this server", { retryable: true }));
  }
  const argv = [bundle, ...(call.timeZone ? ["--time-zone", call.timeZone] : []), "--", call.module, call.method];
  const child = spawn(process.execPath, argv, {
    shell: false,
    stdio: ["pipe", "pipe", "pipe"],
    env: {
      DISPATCH_TOOL_CREDENTIAL: call.credential,
      DISPATCH_TOOL_GATEWAY: gateway,
      NODE_ENV: env.NODE_ENV,
      // The CLI has no use for the host's zone; fixing it spares any Intl use in it looking the
      // zone up.
      TZ: "UTC",
    },
  });

  let stopped: ToolError | null = null;
  const stop = (error: ToolError) => {
    stopped ??= error;
    child.kill("SIGKILL");
  };
  const timer = setTimeout(() => stop(new ToolError("TIMEOUT", `project_cli did not finish within ${call.timeoutMs / 1000} s`, { retryable: true })), call.timeoutMs);
  const onAbort = () => stop(new ToolError("CANCELLED", "The run was cancelled while the tool was running"));
  call.signal?.addEventListener("abort", onAbort, { once: true });
  // Aborted while the bundle was being checked: the listener above came too late to hear it.
  if (call.signal?.aborted) onAbort();

  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes > MAX_OUTPUT_BYTES) stop(new ToolError("OUTPUT_TOO_LARGE", "project_cli returned more data than a tool result may hold"));
    else stdout.push(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-MAX_STDERR_CHARS)));
  // A child that dies before reading its input must not crash the server with EPIPE.
  child.stdin.on("error", () => {});
  child.stdin.end(JSON.stringify(call.input));

  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, error }));
    child.once("close", (code) => resolve({ code }));
  });
  clearTimeout(timer);
  call.signal?.removeEventListener("abort", onAbort);
  if (stopped) return fail(stopped);

  const output = parseOutput(Buffer.concat(stdout).toString("utf8"));
  const scrubbed = scrub(stderr, [call.credential]);
  if (!output || exit.error) {
    logger.error({ exitCode: exit.code, err: exit.error, stderr: scrubbed }, "project_cli produced no result");
    return fail(new ToolError("INTERNAL", "project_cli failed unexpectedly"));
  }
  if (!output.ok && output.error.code === "INTERNAL") logger.error({ exitCode: exit.code, stderr: scrubbed }, "project_cli failed");
  return output;
}

function parseOutput(stdout: string): CliOutput | null {
  const line = stdout.trim().split("\n").at(-1);
  if (!line) return null;
  try {
    const parsed = cliOutputSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

// The child never prints its credential; this holds even if a future bug made it.
function scrub(text: string, secrets: string[]): string {
  return secrets.reduce((acc, secret) => (secret ? acc.split(secret).join("[redacted]") : acc), text);
}
