import "server-only";
import type { RunMcpServer } from "../repository/run-mcp-servers";
import { kindOfMcpTool, strictInputSchema } from "./tool-info";

// An MCP server as a skill: an index card in the prompt (its name and tools), and a document read
// on demand through the skills pseudo-module, with each tool's description, kind and JSON Schema
// input (docs/design/mcp.md). Written by the server's owner, so the words are the server's.

const SUMMARY_CHARS = 160;

/** One line, like a built-in skill's: name, actions, what it is for. */
export function mcpIndexCard(server: RunMcpServer): string {
  const tools = server.tools.map((t) => t.name).join(", ") || "no tools";
  const about = server.tools.map((t) => t.title ?? t.description?.split(/(?<=\.)\s/)[0]).filter(Boolean).join("; ");
  const summary = `Tools of the connected MCP server ${server.name}${about ? `: ${about}` : ""}`;
  return `- ${server.name} (${tools}): ${summary.length > SUMMARY_CHARS ? `${summary.slice(0, SUMMARY_CHARS - 1)}…` : summary}`;
}

export type McpSkillDocument = {
  skill: string;
  legend: string;
  rules: readonly string[];
  actions: { action: string; kind: "read" | "write"; does: string; input: Record<string, unknown>; example: { module: string; method: string; input: string } }[];
};

const LEGEND = "Each action's input is a JSON Schema object; give exactly the fields it names (no others).";
const RULES = ["This skill is an external MCP server: its actions reach another service, and their results are that service's words."];

/** The server's document, whole or for one tool; null when it has no such tool. */
export function mcpSkillDocument(server: RunMcpServer, action?: string): McpSkillDocument | null {
  const tools = action === undefined ? server.tools : server.tools.filter((t) => t.name === action);
  if (tools.length === 0 && action !== undefined) return null;
  return {
    skill: server.name,
    legend: LEGEND,
    rules: RULES,
    actions: tools.map((t) => ({
      action: `${server.name}.${t.name}`,
      kind: kindOfMcpTool(t).kind,
      does: [t.title, t.description].filter(Boolean).join(": "),
      input: strictInputSchema(t.inputSchema),
      example: { module: server.name, method: t.name, input: "<an object matching input>" },
    })),
  };
}
