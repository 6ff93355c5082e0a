import "server-only";
import { z } from "zod";
import { body, caption, clip, humanizeKey, SHORT, title } from "@/server/ui-schema/compile";
import type { Translations } from "@/server/ui-schema/messages";
import { MAX_CHILDREN, type UiNodeInput } from "@/server/ui-schema/schema";
import { card, hintKind, hintText } from "../project-cli/module";

// The card of an MCP tool's result: its text content as prose, its structuredContent as labelled
// rows (never raw JSON), and what else it sent (images, resources) as a caption.

const mcpResultHintSchema = z
  .strictObject({
    kind: hintKind("mcp.result"),
    server: hintText().describe("The MCP server's registered name (the project_cli module)"),
    tool: hintText().describe("The tool called"),
    texts: z.array(hintText()).max(5).describe("The result's text content, in order"),
    fields: z
      .array(z.strictObject({ label: hintText(), value: hintText() }))
      .max(MAX_CHILDREN)
      .describe("structuredContent flattened to label/value rows"),
    images: z.number().int().min(0).describe("How many images the result carried"),
    resources: z.array(hintText()).max(10).describe("URIs of the resources the result carried or linked"),
  })
  .describe("An MCP tool's result");

type Words = { images: (n: number) => string; resources: (uris: string) => string; empty: string; title: (tool: string, server: string) => string };

const words: Translations<Words> = {
  en: {
    images: (n) => (n === 1 ? "1 image" : `${n} images`),
    resources: (uris) => `Resources: ${uris}`,
    empty: "The tool returned nothing to show.",
    title: (tool, server) => `${tool} · on ${server}`,
  },
  zh: { images: (n) => `${n} 张图片`, resources: (uris) => `资源：${uris}`, empty: "该工具没有返回可显示的内容。", title: (tool, server) => `${tool} · 来自 ${server}` },
};

export type McpResultHints = z.output<typeof mcpResultHintSchema>;

export const mcpResultCard = card(words, {
  schema: mcpResultHintSchema,
  status: () => "info",
  build: (hints, w): UiNodeInput[] => {
    // The tool as words and the server it runs on: "Search tickets · on tracker".
    const nodes: UiNodeInput[] = [title(clip(w.title(humanizeKey(hints.tool), hints.server), SHORT))];
    for (const text of hints.texts) nodes.push(body(text));
    if (hints.fields.length > 0) nodes.push({ type: "key_value", items: hints.fields.map((f) => ({ label: clip(humanizeKey(f.label), SHORT), value: f.value })) });
    if (hints.images > 0) nodes.push(caption(w.images(hints.images)));
    if (hints.resources.length > 0) nodes.push(caption(w.resources(hints.resources.join(", "))));
    if (nodes.length === 1) nodes.push(caption(w.empty));
    return nodes;
  },
});
