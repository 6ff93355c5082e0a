import { describe, expect, it } from "vitest";
import { PROJECT_CLI_ACTIONS, type ActionDefinition } from "@/server/tools/project-cli/actions";
import { annotationsOf, describeServedTool, findServedTool, servedTools } from "./tools";

// The MCP tools Dispatch serves come from the module registry, with hints from what each method declares.

const action = (a: Partial<ActionDefinition>) => ({ ...PROJECT_CLI_ACTIONS[0]!, ...a }) as ActionDefinition;

describe("served MCP tools", () => {
  it("serves every registered action of the allowed modules, under <module>_<method>", () => {
    const all = PROJECT_CLI_ACTIONS.map((a) => a.module);
    expect(servedTools(all)).toHaveLength(PROJECT_CLI_ACTIONS.length);
    expect(servedTools(["memory"]).map((t) => t.name)).toEqual(["memory_read", "memory_update"]);
    expect(findServedTool("memory_update", ["calendar"])).toBeUndefined();
    expect(findServedTool("memory_update", ["memory"])?.action.method).toBe("update");
  });

  it("maps a method's kind and declared reach to MCP's hints", () => {
    expect(annotationsOf(action({ kind: "read" }))).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotationsOf(action({ kind: "write", reach: "never" }))).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(annotationsOf(action({ kind: "write", reach: "depends" }))).toMatchObject({ openWorldHint: true });
    expect(annotationsOf(action({ kind: "write", reach: "always" }))).toMatchObject({ openWorldHint: true });
  });

  it("describes every tool with an object JSON Schema and a description", () => {
    for (const tool of servedTools(PROJECT_CLI_ACTIONS.map((a) => a.module)).map(describeServedTool)) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.inputSchema, tool.name).not.toHaveProperty("$schema");
      expect(tool.description, tool.name).toMatch(/\w/);
    }
  });
});
