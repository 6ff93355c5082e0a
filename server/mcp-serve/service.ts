import "server-only";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { needsApproval, userApprovalPolicySchema, type RunApprovalPolicy } from "@/server/approvals/policy";
import { AppError } from "@/server/kernel/errors";
import { logger } from "@/server/logger";
import { DEFAULT_ALLOWED_MODULES } from "@/server/tools/project-cli/allow-list";
import { ToolError } from "@/server/tools/project-cli/errors";
import { MAX_REQUEST_BYTES, runPreparedCall } from "@/server/tools/project-cli/gateway";
import { postProcess } from "@/server/tools/project-cli/post-process";
import { projectCliRouter, type CliOutput } from "@/server/tools/project-cli/router";
import { findMcpCaller, type McpCaller } from "./repository";
import { describeServedTool, findServedTool, servedTools } from "./tools";

// Dispatch as an MCP server (docs/mcp.md#use-dispatch-from-an-mcp-client). An API key's owner's
// project_cli actions are MCP tools; a call takes the agent's path from the router on: the
// whitelist and the module allow-list, the method's strict schema, the approval policy, the
// gateway's pool, once-per-call for writes (tool_effects), the same log line.
//
// Stateless: each POST is a fresh server and transport answering JSON, with no session kept
// between requests, so any instance (or Vercel function) can answer any request and nothing is
// lost when one goes away. Nothing here pushes to the client unasked, so a session would buy
// nothing; it also rules out elicitation, which is why a call the policy reserves for a person
// is refused with APPROVAL_REQUIRED rather than asked about.

const INSTRUCTIONS =
  "Dispatch: the signed-in user's calendar, contacts and memory. Each tool is one action; a failed call answers {status:\"failure\", error:{code, message, ...}}, and for INVALID_ACTION_INPUT error.issues names the fields to fix.";

/**
 * Who an MCP request acts for, as the edge authenticated it: an API key's owner (`apiKeyHash`,
 * whose key may approve by itself) or an OAuth grant's user (`apiKeyHash` null). `runId` is what
 * its writes are recorded under in tool_effects: `mcp:<API key id>` or `mcp:oauth:<grant id>`.
 */
export type McpClientCaller = { userId: string; apiKeyHash: string | null; runId: string };

/** Answers one MCP request (POST) of an API key's owner or an OAuth client's user. */
export async function serveMcpRequest(req: Request, caller: McpClientCaller): Promise<Response> {
  const server = new Server({ name: "dispatch", version: "1.0.0" }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { hiddenSkills } = await callerOf(caller);
    return { tools: servedTools(DEFAULT_ALLOWED_MODULES.filter((m) => !hiddenSkills.includes(m))).map(describeServedTool) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(caller, request.params, extra.signal));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_REQUEST_BYTES });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    await server.close();
  }
}

type Caller = McpClientCaller;

async function callerOf({ userId, apiKeyHash }: Caller): Promise<McpCaller> {
  const found = await findMcpCaller({ userId, apiKeyHash });
  if (!found) throw new AppError("UNAUTHORIZED", "Unknown user");
  return found;
}

async function callTool(caller: Caller, params: { name: string; arguments?: Record<string, unknown> }, signal: AbortSignal): Promise<CallToolResult> {
  const started = Date.now();
  // Hidden skills stay callable, as for the agent: hiding decides what is shown, not what may run.
  const tool = findServedTool(params.name, DEFAULT_ALLOWED_MODULES);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Dispatch has no tool ${params.name}`);
  const { module, method } = tool.action;
  const userId = caller.userId;
  const toolCallId = `mcp_${randomUUID().replace(/-/g, "")}`;
  const outcome = await runChecked(caller, { module, method, input: params.arguments ?? {}, toolCallId, signal });
  const { output, toolResponseText } = postProcess({ toolCallId, args: { module, method, input: params.arguments ?? {} }, outcome });
  logger.info({ via: "mcp", userId, toolCallId, module, method, kind: tool.action.kind, status: output.status, code: output.error?.code, ms: Date.now() - started }, "project_cli call");
  const data = outcome.ok ? outcome.data : null;
  return {
    content: [{ type: "text", text: toolResponseText }],
    ...(data !== null && typeof data === "object" && !Array.isArray(data) ? { structuredContent: data as Record<string, unknown> } : {}),
    ...(outcome.ok ? {} : { isError: true }),
  };
}

async function runChecked(caller: Caller, call: { module: string; method: string; input: unknown; toolCallId: string; signal: AbortSignal }): Promise<CliOutput> {
  const { module, method } = call;
  const prepared = projectCliRouter.prepare({ module, method, input: call.input, allowedModules: DEFAULT_ALLOWED_MODULES });
  if ("failed" in prepared) return prepared.failed;
  if (prepared.kind === "write") {
    const stored = (await callerOf(caller)).policy;
    const policy: RunApprovalPolicy = stored === "auto" ? "auto" : userApprovalPolicySchema.catch("always").parse(stored);
    if (needsApproval(policy, module, method, prepared.input)) {
      const error = new ToolError("APPROVAL_REQUIRED", `${module}.${method} needs a person's approval under your approval policy (${policy}); it was not run. Do it in Dispatch's chat, or use an API key that approves by itself.`, {
        details: { policy },
      });
      return { ok: false, module, method, error: error.toBody() };
    }
  }
  // Each call is its own: MCP gives no id a retry would repeat. The run id names the credential it came with.
  const key = { userId: caller.userId, runId: caller.runId, toolCallId: call.toolCallId };
  return runPreparedCall({ module, method, prepared, key, timeZone: "UTC", signal: call.signal });
}
