import "server-only";
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from "ai";
import type { ApprovalGate } from "../approvals/gate";
import type { RunMcpServer } from "../tools/repository/run-mcp-servers";
import { logger } from "../logger";
import { LEFT_OPEN } from "./model-loop";
import type { Tool as ClientTool } from "../protocols/ag-ui/run-input";
import { toolFailureText, type ToolOutcome } from "./tool-outcome";

// The tools one run offers the model: project_cli, executed here, and the tools the client
// declared, which have no execute function, so the loop stops when the model calls one and
// the call is left for the client to answer (AG-UI frontend tools).

export type ProjectCliRequest = {
  userId: string;
  runId: string;
  /** The id the client saw; a write runs once per call (server/tools/project-cli/effects.ts). */
  toolCallId: string;
  /** The run the call was made in, when this run carries an approved call of an earlier one. */
  callRunId?: string;
  args: unknown;
  signal?: AbortSignal;
  timeZone?: string;
  /** The skills whose documents the run shows (never what it may call). */
  visibleSkills?: readonly string[];
  /** The language of the call's card. */
  locale?: string;
  /** The MCP servers the run may use, each a project_cli module. */
  mcpServers?: readonly RunMcpServer[];
};

/** project_cli as the loop uses it; the real one is server/tools/project-cli/tool.ts. */
export type ProjectCliBinding = {
  name: string;
  description: string;
  /** The thin {module, method, input} schema shown to the model; the tool validates strictly itself. */
  parameters: JSONSchema7;
  run: (request: ProjectCliRequest) => Promise<{ toolResponseText: string; uiSchema: ToolOutcome["uiSchema"]; output: object }>;
};

// Function names every OpenAI-compatible API accepts; others would fail the whole request.
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function objectSchema(parameters: Record<string, unknown> | undefined): JSONSchema7 {
  if (parameters && parameters.type === "object") return parameters as JSONSchema7;
  return { type: "object", properties: {}, additionalProperties: true };
}

/** One project_cli call as the model's answer: a failure to run at all is reported, not thrown (unless aborted). */
export async function runProjectCliCall(projectCli: ProjectCliBinding, request: ProjectCliRequest): Promise<ToolOutcome> {
  try {
    const r = await projectCli.run(request);
    return { toolResponseText: r.toolResponseText, uiSchema: r.uiSchema, output: r.output as Record<string, unknown> };
  } catch (err) {
    if (request.signal?.aborted) throw err;
    logger.error({ err, runId: request.runId, toolCallId: request.toolCallId }, "project_cli failed to run");
    return { toolResponseText: toolFailureText("TOOL_UNAVAILABLE", "project_cli could not run; try again later"), uiSchema: null, output: null };
  }
}

export function buildAgentTools(opts: {
  projectCli: ProjectCliBinding;
  userId: string;
  runId: string;
  timeZone: string;
  locale?: string;
  signal: AbortSignal;
  clientTools: readonly ClientTool[];
  visibleSkills?: readonly string[];
  mcpServers?: readonly RunMcpServer[];
  /** Stops the writes the run's approval policy reserves for a person; the call is left open. */
  approvals?: ApprovalGate;
  /** The id the client saw for a call (the event translator may suffix a provider's reused id). */
  wireId?: (toolCallId: string) => string;
}): ToolSet {
  const { projectCli, userId, runId, timeZone, locale, signal, approvals, visibleSkills, mcpServers } = opts;
  const wireId = opts.wireId ?? ((id: string) => id);
  const tools: ToolSet = {};
  for (const client of opts.clientTools) {
    if (client.name === projectCli.name || !TOOL_NAME.test(client.name)) {
      logger.warn({ runId, tool: client.name.slice(0, 80) }, "client tool skipped: reserved or unusable name");
      continue;
    }
    tools[client.name] = tool({ description: client.description, inputSchema: jsonSchema(objectSchema(client.parameters)), strict: false });
  }
  tools[projectCli.name] = tool({
    description: projectCli.description,
    // No validation here: project_cli judges its own input and answers bad input with a
    // structured failure the model can act on, instead of the SDK's generic error.
    inputSchema: jsonSchema<unknown>(projectCli.parameters),
    strict: false,
    execute: async (args, { toolCallId }): Promise<ToolOutcome | typeof LEFT_OPEN> => {
      const id = wireId(toolCallId);
      if (approvals && (await approvals.check({ toolCallId: id, args }))) return LEFT_OPEN;
      return runProjectCliCall(projectCli, { userId, runId, toolCallId: id, args, signal, timeZone, locale, visibleSkills, mcpServers });
    },
    toModelOutput: ({ output }) => ({ type: "text", value: (output as ToolOutcome).toolResponseText }),
  });
  return tools;
}
