import "server-only";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { logger } from "@/server/logger";
import { ToolError } from "../project-cli/errors";
import type { CliOutput } from "../project-cli/router";
import { callMcpTool, McpResponseTooLargeError } from "./connections";
import { claimMcpEffect, recordMcpEffect, type McpEffectKey } from "./repository";
import type { RunMcpServer } from "../repository/run-mcp-servers";
import { mcpErrorText, mcpResultData } from "./results";
import { recordMcpToolCall } from "../repository/mcp-stats";
import { kindOfMcpTool, strictInputSchema, type McpToolInfo } from "./tool-info";

// One project_cli call of an MCP server's tool: the run's grants, the tool's inputSchema (strict:
// an object schema that says nothing of other keys refuses them, as project_cli's own do), then
// the call through the connection pool. Everything that goes wrong is an answer the model reads
// (a ToolError), never a throw: a server that is down fails the call, not the run.

const validators = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();

function validatorFor(schema: Record<string, unknown>): JsonSchemaValidator<unknown> {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = validators.getValidator(schema as JsonSchemaType);
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** null when `input` fits the tool's schema, else the INVALID_ACTION_INPUT error that says what to fix. */
export function checkMcpInput(server: string, tool: McpToolInfo, input: unknown): ToolError | null {
  const schema = strictInputSchema(tool.inputSchema);
  let result;
  try {
    result = validatorFor(schema)(input);
  } catch {
    return new ToolError("TOOL_UNAVAILABLE", `${server}.${tool.name} has an input schema this server cannot use`);
  }
  if (result.valid) return null;
  const issues = (result.errorMessage ?? "").split(", ").filter(Boolean).slice(0, 20).map((message) => ({ path: "", message }));
  return new ToolError("INVALID_ACTION_INPUT", `${server}.${tool.name} input does not match method schema`, {
    details: { module: server, method: tool.name, input_schema: schema, issues },
  });
}

export type McpCallRequest = {
  server: RunMcpServer;
  method: string;
  input: unknown;
  /** Who asked, and the call's key: a write is made at most once per key. */
  effectKey: McpEffectKey;
  signal?: AbortSignal;
};

/** Runs one call of a granted MCP tool; the answer is project_cli's CliOutput. */
export async function runMcpCall({ server, method, input, effectKey, signal }: McpCallRequest): Promise<CliOutput> {
  const fail = (error: ToolError): CliOutput => ({ ok: false, module: server.name, method, error: error.toBody() });
  const tool = server.tools.find((t) => t.name === method);
  if (!tool) {
    return fail(new ToolError("UNKNOWN_ACTION", `The ${server.name} skill has no action ${method}`, { details: { available: server.tools.map((t) => `${server.name}.${t.name}`) } }));
  }
  const invalid = checkMcpInput(server.name, tool, input);
  if (invalid) return fail(invalid);
  const kind = kindOfMcpTool(tool);
  // A write that is not idempotent is made at most once per call id: a repeat (a retried step, a
  // runner's retry) answers what the first call answered, or, when the first never finished, says so.
  const once = kind.kind === "write" && tool.annotations?.idempotentHint !== true;
  if (once) {
    const claim = await claimMcpEffect({ ...effectKey, action: `${server.name}.${method}`, input });
    if (claim.state === "reused") return fail(new ToolError("TOOL_CALL_ID_REUSED", "This tool call id was already used for another call in this run; give each call its own id"));
    if (claim.state === "answered") return claim.output as CliOutput;
    if (claim.state === "unfinished") {
      return fail(new ToolError("OUTCOME_UNKNOWN", `An earlier attempt of this ${server.name}.${method} call did not finish; it is not repeated, since it may have taken effect`));
    }
  }
  const retry = kind.kind === "read" || tool.annotations?.idempotentHint === true;
  const started = performance.now();
  const output = await callServer(server, tool.name, input as Record<string, unknown>, retry, signal);
  if (once) await recordMcpEffect({ ...effectKey, output });
  await countCall(server, tool.name, performance.now() - started, output);
  return output;
}

// For the console's health and calls per tool; a count that cannot be written costs the call nothing.
async function countCall(server: RunMcpServer, tool: string, ms: number, output: CliOutput): Promise<void> {
  try {
    await recordMcpToolCall({ serverId: server.id, tool, ms, errorCode: output.ok ? null : output.error.code });
  } catch (err) {
    logger.warn({ mcpServer: server.name, tool, error: err instanceof Error ? err.name : typeof err }, "could not count an MCP call");
  }
}

async function callServer(server: RunMcpServer, tool: string, input: Record<string, unknown>, retry: boolean, signal?: AbortSignal): Promise<CliOutput> {
  const fail = (error: ToolError): CliOutput => ({ ok: false, module: server.name, method: tool, error: error.toBody() });
  try {
    const result = await callMcpTool({ serverId: server.id, tool, input, retry, signal });
    if (result.isError) return fail(new ToolError("MCP_TOOL_ERROR", mcpErrorText(result)));
    return { ok: true, module: server.name, method: tool, data: mcpResultData(result) };
  } catch (err) {
    if (signal?.aborted) throw err;
    if (err instanceof McpResponseTooLargeError) return fail(new ToolError("RESULT_TOO_LARGE", `The ${server.name} server's answer was larger than this server takes; ask for less`));
    // The SDK's message can quote what the server sent; the log keeps its name and the model a plain sentence.
    logger.warn({ mcpServer: server.name, tool, error: err instanceof Error ? err.name : typeof err }, "MCP call failed");
    return fail(new ToolError("TOOL_UNAVAILABLE", `The ${server.name} server did not answer; it may be down. Try again later or go on without it.`, { retryable: true }));
  }
}
