import { describe, expect, it } from "vitest";
import { compileUiHints } from "../project-cli/cards";
import { mcpResultData, mcpResultHints } from "./results";
import { kindOfMcpTool, strictInputSchema, toToolInfo } from "./tool-info";

const tool = (annotations?: Record<string, unknown>) => toToolInfo({ name: "t", inputSchema: { type: "object" }, ...(annotations ? { annotations } : {}) });

describe("MCP tool annotations", () => {
  it("make a read of readOnlyHint, and a write that involves others unless it says it is neither destructive nor open-world", () => {
    expect(kindOfMcpTool(tool({ readOnlyHint: true, destructiveHint: true }))).toEqual({ kind: "read" });
    expect(kindOfMcpTool(tool())).toEqual({ kind: "write", involvesOthers: true });
    expect(kindOfMcpTool(tool({ destructiveHint: false }))).toEqual({ kind: "write", involvesOthers: true });
    expect(kindOfMcpTool(tool({ destructiveHint: false, openWorldHint: false }))).toEqual({ kind: "write", involvesOthers: false });
    expect(tool({ readOnlyHint: "yes", title: "x" }).annotations).toBeUndefined();
  });

  it("closes an object schema that says nothing of other keys, and leaves one that does", () => {
    expect(strictInputSchema({ type: "object", properties: {} })).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(strictInputSchema({ type: "object", additionalProperties: true })).toEqual({ type: "object", additionalProperties: true });
  });
});

describe("MCP results", () => {
  const result = {
    content: [
      { type: "text" as const, text: "Opened ticket T-1" },
      { type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" },
      { type: "resource_link" as const, uri: "tickets://T-1", name: "T-1" },
    ],
    structuredContent: { ticket: { id: "T-1", tags: ["a", "b"] }, open: true },
  };

  it("give the model text, structuredContent and resource URIs, never image bytes", () => {
    const data = mcpResultData(result);
    expect(JSON.stringify(data)).not.toContain("aGVsbG8=");
    expect(data).toMatchObject({ content: [{ type: "text", text: "Opened ticket T-1" }, { type: "image", mimeType: "image/png" }, { type: "resource_link", uri: "tickets://T-1" }], structuredContent: result.structuredContent });
  });

  it("render as a card of rows, an image count and the resources, with no raw JSON", () => {
    const card = compileUiHints(mcpResultHints("tickets", "create_ticket", mcpResultData(result)));
    const text = JSON.stringify(card);
    expect(text).toContain('"label":"Ticket.id","value":"T-1"');
    expect(text).toContain('"value":"a, b"');
    expect(text).toContain("1 image");
    expect(text).toContain("tickets://T-1");
    expect(text).not.toContain('{\\"');
    expect(text).toContain('"content":"Create ticket · on tickets"');
  });
});
