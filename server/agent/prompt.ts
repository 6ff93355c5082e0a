import "server-only";
import { buildToolsPrompt } from "../protocols/ag-ui/tools-prompt";
import type { Context, Tool } from "../protocols/ag-ui/run-input";
import { toLocal } from "../lib/time";
import { subjectsOf } from "../tools/project-cli/prose";
import { skillIndexCard, SKILLS_MODULE } from "../tools/project-cli/skills";
import { PROJECT_CLI_TOOL_NAME } from "../tools/project-cli/tool";

export type MemoryFact = { key: string; value: string };

export type SystemPromptInput = {
  now: Date;
  timeZone: string;
  memoryFacts: readonly MemoryFact[];
  context: readonly Context[];
  /** Client-declared (frontend) tools, rendered with the spec's build_tools_prompt. */
  clientTools: readonly Tool[];
  /** The skills the run shows (their index cards); what the run may call is decided elsewhere. */
  skills: readonly string[];
  /** The index cards of the MCP servers the run may use (server/tools/mcp/skills.ts). */
  mcpCards?: readonly string[];
  /** The run's AG-UI shared state (docs/ag-ui.md, "Shared state"), when it has one. */
  sharedState?: Record<string, unknown>;
};

// The skills' index cards replace what used to be every action's signature: an action's fields,
// example and pitfalls are read on demand, so a run pays for the skills it uses, once.
function describeRole(skills: readonly string[], mcpCards: readonly string[]): string {
  const read = `{"module":"${SKILLS_MODULE}","method":"read","input":{"skill":"<name>","action":"<action>"}}`;
  return [
    skills.length > 0 ? `You are Dispatch, an assistant that manages the user's ${subjectsOf(skills)}.` : "You are Dispatch, an assistant.",
    `You act through one tool, ${PROJECT_CLI_TOOL_NAME}, called as {"module", "method", "input"}, with these skills:`,
    ...(skills.length + mcpCards.length > 0 ? [...skills.map(skillIndexCard), ...mcpCards] : ["(none enabled)"]),
    `- Before you first use an action in a conversation, read its document with ${read}: its input fields, an example and pitfalls (without "action", the whole skill's).`,
    `- When ${PROJECT_CLI_TOOL_NAME} answers {"status":"failure"} with INVALID_ACTION_INPUT, correct the input using its input_schema and issues, then call it again.`,
    "- After a tool call, answer in a few plain sentences; the user also sees the tool's result as a card.",
  ].join("\n");
}

// The role depends only on which skills show; most runs share a handful of combinations.
const roles = new Map<string, string>();

function roleFor(skills: readonly string[], mcpCards: readonly string[]): string {
  // MCP servers' cards change with their tools: those roles are made each time, not kept.
  if (mcpCards.length > 0) return describeRole(skills, mcpCards);
  const key = skills.join(",");
  let role = roles.get(key);
  if (role === undefined) {
    role = describeRole(skills, []);
    roles.set(key, role);
  }
  return role;
}

// Building an Intl formatter costs more than the rest of the prompt; one per zone is kept.
const dateFormatters = new Map<string, Intl.DateTimeFormat>();
// Formatting with one still costs more than a run's other prompt work, for a line that
// changes once a minute: each zone keeps its line for the minute it was made in.
const localLines = new Map<string, { minute: number; line: string }>();

function describeLocal(now: Date, timeZone: string): string {
  const minute = Math.floor(now.getTime() / 60_000);
  const cached = localLines.get(timeZone);
  if (cached?.minute === minute) return cached.line;
  const l = toLocal(now, timeZone);
  let formatter = dateFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "long", year: "numeric", month: "long", day: "numeric" });
    dateFormatters.set(timeZone, formatter);
  }
  const line = `${formatter.format(now)}, ${String(l.hour).padStart(2, "0")}:${String(l.minute).padStart(2, "0")}`;
  localLines.set(timeZone, { minute, line });
  return line;
}

function describeNow(now: Date, timeZone: string): string {
  return `Now: ${describeLocal(now, timeZone)} in the user's time zone ${timeZone} (${now.toISOString()} UTC).`;
}

function describeMemory(facts: readonly MemoryFact[]): string {
  if (facts.length === 0) return "What you remember about the user: nothing yet.";
  return ["What you remember about the user (memory facts, key: value):", ...facts.map((f) => `- ${f.key}: ${f.value}`)].join("\n");
}

function describeContext(context: readonly Context[]): string | null {
  if (context.length === 0) return null;
  return ["Context from the user's application:", ...context.map((c) => `- ${c.description}: ${c.value}`)].join("\n");
}

function describeClientTools(tools: readonly Tool[]): string | null {
  const rendered = buildToolsPrompt(tools);
  if (!rendered) return null;
  return `The user's application also runs these tools itself. Call one when it helps; its result arrives later, so stop after calling it.\n${rendered}`;
}

// The plan convention (agentic generative UI): any client renders state.plan.steps as a checklist.
function describeSharedState(state: Record<string, unknown> | undefined): string | null {
  if (state === undefined) return null;
  return [
    "Shared state (JSON): data the user's application shows and edits, kept with this conversation. It is current as the run starts; change it only with update_state (RFC 6902 JSON Patch operations).",
    '- For work of several steps, keep a plan in state: {"plan": {"steps": [{"description": "...", "status": "pending"}]}}; set each step\'s status to "in_progress" when you start it and "done" when it is finished.',
    "```json",
    JSON.stringify(state),
    "```",
  ].join("\n");
}

/**
 * The system prompt for one run: role, skill index cards and rules, the current date and time in the user's
 * zone, what the agent remembers about the user, the client's context entries, and the
 * client-declared tools exactly as build_tools_prompt renders them (nothing when none), and the
 * shared state last, since it changes most from run to run.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  return [
    roleFor(input.skills, input.mcpCards ?? []),
    describeNow(input.now, input.timeZone),
    describeMemory(input.memoryFacts),
    describeContext(input.context),
    describeClientTools(input.clientTools),
    describeSharedState(input.sharedState),
  ]
    .filter((section): section is string => section !== null)
    .join("\n\n");
}
