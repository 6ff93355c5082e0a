import "server-only";

// One tool of an MCP server as Dispatch keeps it (from tools/list): what the skill document and
// the strict validation need, and the annotations the approval policy reads. Annotations are the
// server's hints, not guarantees; they only pick how careful Dispatch is (docs/design/mcp.md).

export type McpToolAnnotations = { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };

export type McpToolInfo = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpToolAnnotations;
};

/** How project_cli treats a call: a read never asks nor is recorded; a write may reach others. */
export type McpToolKind = { kind: "read" } | { kind: "write"; involvesOthers: boolean };

/** readOnlyHint → read; destructiveHint or openWorldHint → a write that involves others; else a write. */
export function kindOfMcpTool(tool: McpToolInfo): McpToolKind {
  const a = tool.annotations ?? {};
  if (a.readOnlyHint === true) return { kind: "read" };
  return { kind: "write", involvesOthers: a.destructiveHint !== false || a.openWorldHint !== false };
}

// Names a module or an action may have: what the model can type and a project_cli module uses.
export const MCP_SERVER_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** The fields of tools/list kept per tool; anything else the server sends is dropped. */
export function toToolInfo(tool: { name: string; title?: string; description?: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown> }): McpToolInfo {
  const a = tool.annotations ?? {};
  const bool = (v: unknown) => (typeof v === "boolean" ? v : undefined);
  const annotations: McpToolAnnotations = {
    readOnlyHint: bool(a.readOnlyHint),
    destructiveHint: bool(a.destructiveHint),
    idempotentHint: bool(a.idempotentHint),
    openWorldHint: bool(a.openWorldHint),
  };
  const kept = Object.fromEntries(Object.entries(annotations).filter(([, v]) => v !== undefined)) as McpToolAnnotations;
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title.slice(0, 200) } : {}),
    ...(tool.description ? { description: tool.description.slice(0, 2_000) } : {}),
    inputSchema: tool.inputSchema,
    ...(Object.keys(kept).length > 0 ? { annotations: kept } : {}),
  };
}

/** The schema an input is checked against: the tool's, closed to keys it does not name. */
export function strictInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.type === "object" && schema.additionalProperties === undefined) return { ...schema, additionalProperties: false };
  return schema;
}
