import "server-only";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { UiHints } from "../project-cli/module";
import type { McpResultHints } from "./cards";

// An MCP tools/call answer as project_cli data (what the model reads) and as card hints (what the
// user sees). Images reach neither as bytes: the model is told one was returned, the card counts
// it. Text is cut at MAX_TEXT so one answer cannot flood the model's context.

const MAX_TEXT = 64_000;
const MAX_CARD_TEXT = 4_000;

type ContentPart = CallToolResult["content"][number];

function partForModel(part: ContentPart): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
    case "audio":
      return { type: part.type, mimeType: part.mimeType, note: `${part.type} returned (not shown to the model)` };
    case "resource":
      return { type: "resource", uri: part.resource.uri, ...("text" in part.resource ? { text: part.resource.text } : {}) };
    case "resource_link":
      return { type: "resource_link", uri: part.uri, name: part.name };
    default:
      return { type: "unknown" };
  }
}

function clipTexts(parts: Record<string, unknown>[]): Record<string, unknown>[] {
  let budget = MAX_TEXT;
  return parts.map((p) => {
    if (typeof p.text !== "string") return p;
    const text = p.text.length <= budget ? p.text : `${p.text.slice(0, Math.max(0, budget))}… [cut: the tool returned ${p.text.length} characters]`;
    budget = Math.max(0, budget - p.text.length);
    return { ...p, text };
  });
}

/** What the model reads of a successful call. */
export function mcpResultData(result: CallToolResult): Record<string, unknown> {
  const content = clipTexts(result.content.map(partForModel));
  return { content, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}) };
}

/** The text of a result the server marked isError, for the tool error the model sees. */
export function mcpErrorText(result: CallToolResult): string {
  const text = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n").trim();
  return (text || "The tool reported an error").slice(0, 2_000);
}

// structuredContent as rows: nested keys joined with dots, arrays and deeper objects summarised.
function flatten(value: unknown, prefix: string, out: { label: string; value: string }[], depth: number): void {
  if (out.length >= 20) return;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && depth < 2) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
    return;
  }
  const text = Array.isArray(value) ? value.map((v) => (typeof v === "object" && v !== null ? "…" : String(v))).join(", ") : typeof value === "object" && value !== null ? "…" : String(value);
  const label = prefix || "value";
  if (text.trim()) out.push({ label: label.slice(0, 200), value: text.slice(0, MAX_CARD_TEXT) });
}

type DataPart = { type?: unknown; text?: unknown; uri?: unknown };

/** ui_hints for a successful call's card, from what the call answered (mcpResultData). */
export function mcpResultHints(server: string, tool: string, data: unknown): UiHints {
  const { content = [], structuredContent } = (data ?? {}) as { content?: DataPart[]; structuredContent?: unknown };
  const fields: { label: string; value: string }[] = [];
  if (structuredContent) flatten(structuredContent, "", fields, 0);
  const texts = content.flatMap((p) => (p.type === "text" && typeof p.text === "string" && p.text.trim() ? [p.text.trim().slice(0, MAX_CARD_TEXT)] : [])).slice(0, 5);
  const resources = content.flatMap((p) => ((p.type === "resource" || p.type === "resource_link") && typeof p.uri === "string" ? [p.uri.slice(0, 500)] : [])).slice(0, 10);
  const hints: McpResultHints = {
    kind: "mcp.result",
    server,
    tool: tool.slice(0, 200),
    // With structuredContent, its text twin (the same JSON, by the spec's advice) is left out of the card.
    texts: fields.length > 0 ? [] : texts,
    fields,
    images: content.filter((p) => p.type === "image").length,
    resources,
  };
  return hints;
}
