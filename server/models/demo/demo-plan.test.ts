import { isStepCount, jsonSchema, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { applyJsonPatch, type JsonPatchOperation } from "../../lib/json-patch";
import { createDemoModel } from "./demo-model";
import type { ProjectCliArgs } from "./demo-planner";

// The offline demo model keeps a plan in shared state when its run starts from an empty one.

const NOW = new Date("2026-01-02T03:00:00Z");
const ANA = { id: "c1", name: "Ana Souza", email: "ana.souza@example.com", phone: null, company: null, job_title: null, notes: null };
const stateSection = (state: unknown) => `You are Dispatch.\n\nShared state (JSON): data the user's application shows.\n\`\`\`json\n${JSON.stringify(state)}\n\`\`\``;

async function runWith(initial: Record<string, unknown>) {
  let state: unknown = initial;
  const statuses: string[][] = [];
  const calls: ProjectCliArgs[] = [];
  const result = streamText({
    model: createDemoModel({ now: () => NOW, timeZone: "UTC", delayMs: 0 }),
    system: stateSection(initial),
    prompt: "find Ana's email",
    tools: {
      project_cli: tool({
        description: "project_cli",
        inputSchema: jsonSchema<ProjectCliArgs>({ type: "object" }),
        execute: async (args) => (calls.push(args), JSON.stringify({ module: "contacts", method: "read", data: { items: [ANA] } })),
      }),
      update_state: tool({
        description: "update_state",
        inputSchema: jsonSchema<{ operations: JsonPatchOperation[] }>({ type: "object" }),
        execute: async ({ operations }) => {
          state = applyJsonPatch(state, operations);
          statuses.push(((state as { plan: { steps: { status: string }[] } }).plan.steps ?? []).map((s) => s.status));
          return JSON.stringify({ status: "success", applied: operations.length });
        },
      }),
    },
    stopWhen: isStepCount(7),
  });
  return { text: await result.text, state, statuses, calls };
}

describe("the demo model's plan in state", () => {
  it("writes its steps before it works and marks them done before it answers, when the run starts from an empty plan", async () => {
    const { text, state, statuses, calls } = await runWith({ plan: { steps: [] } });
    expect(statuses).toEqual([
      ["in_progress", "pending"],
      ["done", "done"],
    ]);
    expect(state).toEqual({ plan: { steps: [{ description: "Look up the contact", status: "done" }, { description: "Answer you", status: "done" }] } });
    expect(calls).toEqual([{ module: "contacts", method: "read", input: { query: "Ana" } }]);
    expect(text).toBe("Ana Souza's email is ana.souza@example.com.");
  });

  it("leaves a plan that has steps, and other state, to the user", async () => {
    const { statuses, text } = await runWith({ plan: { steps: [{ description: "Mine", status: "pending" }] } });
    expect(statuses).toEqual([]);
    expect(text).toBe("Ana Souza's email is ana.souza@example.com.");
    expect((await runWith({ recipe: { title: "Pancakes" } })).statuses).toEqual([]);
  });
});
