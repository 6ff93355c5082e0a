import "server-only";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import type { DemoAction, ProjectCliArgs } from "./demo-planner";

// The demo model's plan in shared state (agentic generative UI, docs/ag-ui.md "A plan in state"):
// when its run starts from an empty plan ({"plan": {"steps": []}}, how a page asks for one) and it
// is offered update_state, it writes the steps of its work before its first project_cli call
// (that one in progress, the answer pending) and marks them done before it answers. Read from the
// prompt alone, as everything else the demo model does.

export const STATE_TOOL_NAME = "update_state";

/** A call of update_state with these JSON Patch operations. */
export type PlanAction = { type: "state"; operations: unknown[] };

const STATE_SECTION = "Shared state (JSON):";

const STEP_NAMES: Record<string, string> = {
  "calendar.read": "Read your calendar",
  "calendar.create": "Add the event to your calendar",
  "contacts.read": "Look up the contact",
  "memory.read": "Read what I remember about you",
  "memory.update": "Remember it",
};
const stepName = (args: ProjectCliArgs) => STEP_NAMES[`${args.module}.${args.method}`] ?? `Run ${args.module}.${args.method}`;

function systemText(prompt: LanguageModelV4Prompt): string {
  const system = prompt.find((m) => m.role === "system");
  return system && typeof system.content === "string" ? system.content : "";
}

/** Whether the run started from an empty plan: the state section of the system prompt holds {"plan": {"steps": []}}. */
function asksForPlan(prompt: LanguageModelV4Prompt): boolean {
  const text = systemText(prompt);
  const at = text.lastIndexOf(STATE_SECTION);
  const json = at < 0 ? undefined : /```json\n([\s\S]*?)\n```/.exec(text.slice(at))?.[1];
  if (!json) return false;
  try {
    const steps = (JSON.parse(json) as { plan?: { steps?: unknown } }).plan?.steps;
    return Array.isArray(steps) && steps.length === 0;
  } catch {
    return false;
  }
}

/** How many update_state calls the model made since the latest user message. */
function stateCallsMade(prompt: LanguageModelV4Prompt): number {
  const lastUser = prompt.findLastIndex((m) => m.role === "user");
  let made = 0;
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call" && part.toolName === STATE_TOOL_NAME) made++;
  }
  return made;
}

/** The planner's next step, with the plan kept in state around it when the run asks for a plan. */
export function withPlan(action: DemoAction, prompt: LanguageModelV4Prompt, offered: boolean): DemoAction | PlanAction {
  if (!offered || !asksForPlan(prompt)) return action;
  const made = stateCallsMade(prompt);
  if (made === 0 && action.type === "tool") {
    const steps = [
      { description: stepName(action.args), status: "in_progress" },
      { description: "Answer you", status: "pending" },
    ];
    return { type: "state", operations: [{ op: "add", path: "/plan/steps", value: steps }] };
  }
  if (made === 1 && action.type === "text") {
    return {
      type: "state",
      operations: [
        { op: "replace", path: "/plan/steps/0/status", value: "done" },
        { op: "replace", path: "/plan/steps/1/status", value: "done" },
      ],
    };
  }
  return action;
}
