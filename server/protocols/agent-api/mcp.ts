import { z } from "zod";

// The built-in agent's work with an MCP server, as the spec's own message types (encoder.ts): a
// project_cli call of a module that is one of the run's MCP servers is an `mcp_call`; reading that
// server's skill document (skills.read) is how the agent lists its tools, so it is an
// `mcp_list_tools`. Each message's one DataContent holds what the call was and what it answered.

export type McpCall =
  | { type: "mcp_call"; server_label: string; name: string; arguments: string }
  | { type: "mcp_list_tools"; server_label: string };

const argsSchema = z.object({ module: z.string(), method: z.string(), input: z.record(z.string(), z.unknown()).optional() });

/** What a project_cli call is, from its whole arguments: an MCP call, a listing of a server's tools, or neither (null). */
export function classifyMcpCall(args: string, servers: ReadonlySet<string>): McpCall | null {
  let parsed: z.infer<typeof argsSchema>;
  try {
    parsed = argsSchema.parse(JSON.parse(args));
  } catch {
    return null;
  }
  const { module, method, input = {} } = parsed;
  if (servers.has(module)) return { type: "mcp_call", server_label: module, name: method, arguments: JSON.stringify(input) };
  if (module === "skills" && method === "read" && typeof input.skill === "string" && servers.has(input.skill)) {
    return { type: "mcp_list_tools", server_label: input.skill };
  }
  return null;
}

// project_cli's answer text: `{module, method, data}`, or `{status: "failure", error}`.
const answerSchema = z.union([
  z.object({ status: z.literal("failure"), error: z.object({ code: z.string(), message: z.string() }).loose() }),
  z.object({ data: z.unknown() }),
]);

const documentSchema = z.object({
  actions: z.array(z.object({ action: z.string(), does: z.string().optional(), input: z.unknown().optional(), kind: z.string().optional() })),
});

/** The completed message's data: the call and its output (`error` when it failed). */
export function mcpCallData(id: string, call: McpCall, output: string): Record<string, unknown> {
  let answer: z.infer<typeof answerSchema> | null = null;
  try {
    answer = answerSchema.parse(JSON.parse(output));
  } catch {
    // Not project_cli's shape: the output goes on as it is.
  }
  const error = answer && "error" in answer ? `${answer.error.code}: ${answer.error.message}` : null;
  if (call.type === "mcp_call") return { id, ...call, output, error };
  const document = answer && "data" in answer ? documentSchema.safeParse(answer.data) : null;
  const tools = document?.success
    ? document.data.actions.map((a) => ({ name: a.action.slice(call.server_label.length + 1), description: a.does ?? "", input_schema: a.input ?? {}, kind: a.kind }))
    : [];
  return { id, ...call, tools, error };
}
