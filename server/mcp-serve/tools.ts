import "server-only";
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { PROJECT_CLI_ACTIONS, type ActionDefinition } from "@/server/tools/project-cli/actions";

// Dispatch's project_cli actions as MCP tools, read off the module registry (a module added there
// is served here with no other change). A tool is named `<module>_<method>`: the characters every
// MCP client accepts (some refuse dots), unambiguous because the table below refuses a clash.

export type ServedTool = { name: string; action: ActionDefinition };

const served: readonly ServedTool[] = PROJECT_CLI_ACTIONS.map((action) => ({ name: `${action.module}_${action.method}`, action }));
const BY_NAME = new Map(served.map((t) => [t.name, t]));
if (BY_NAME.size !== served.length) throw new Error("Two project_cli actions have the same MCP tool name; rename one method");

/** The served tool of that name, if its module is one the caller may use. */
export function findServedTool(name: string, modules: readonly string[]): ServedTool | undefined {
  const tool = BY_NAME.get(name);
  return tool && modules.includes(tool.action.module) ? tool : undefined;
}

/** The tools of these modules, in registry order. */
export function servedTools(modules: readonly string[]): ServedTool[] {
  return served.filter((t) => modules.includes(t.action.module));
}

/**
 * What a method declares, as MCP's hints: a read is read-only, idempotent and closed-world. A
 * write may overwrite or delete (nothing declares otherwise, so it is destructive, MCP's default);
 * it reaches the open world unless its module declares it never involves anyone else.
 */
export function annotationsOf(action: ActionDefinition): ToolAnnotations {
  if (action.kind === "read") return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: action.reach !== "never" };
}

/** The tool as tools/list describes it: its method's strict schema as JSON Schema (closed objects), and its hints. */
export function describeServedTool({ name, action }: ServedTool): Tool {
  const schema = z.toJSONSchema(action.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  const { $schema: _dialect, ...rest } = schema;
  return {
    name,
    title: `${action.module}.${action.method}`,
    description: [action.input.description, ...(action.pitfalls ?? [])].filter(Boolean).join(" "),
    // MCP wants an object schema at the top; a union of object shapes is one.
    inputSchema: { ...rest, type: "object" },
    annotations: annotationsOf(action),
  };
}
