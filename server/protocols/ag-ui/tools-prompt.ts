import type { Tool } from "./run-input";

export type PromptTool = Pick<Tool, "name" | "description" | "parameters">;

// Each field must stay on its own line: a newline inside a name or description would
// otherwise start a line of its own, forging an entry or the end marker.
const oneLine = (text: string) => text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ").trim();

/**
 * The spec's build_tools_prompt: client tools rendered for the model's system prompt,
 * byte for byte in the spec's format; empty when there are no tools. args_schema is compact
 * JSON in the parameters' own key order, non-ASCII left as is; a tool without parameters
 * gets {} (it accepts any arguments).
 */
export function buildToolsPrompt(tools: readonly PromptTool[]): string {
  if (tools.length === 0) return "";
  const lines = ["<!-- TOOLS_START -->"];
  for (const tool of tools) {
    lines.push(`- ${oneLine(tool.name)}: ${oneLine(tool.description)}`);
    lines.push(`- args_schema: ${JSON.stringify(tool.parameters ?? {})}`);
  }
  lines.push("Note: tool arguments must strictly match args_schema.", "<!-- TOOLS_END -->");
  return lines.join("\n");
}
