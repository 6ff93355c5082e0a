import "server-only";
import { z } from "zod";
import { findAction } from "./actions";
import { ToolError } from "./errors";
import { describeInputSchema, type InputSchemaDescription } from "./input-schema";
import type { ModuleDefinition } from "./module";
import { PROJECT_CLI_MODULE_DEFINITIONS } from "./modules/registry";
import type { CliOutput } from "./router";
import type { RunMcpServer } from "../repository/run-mcp-servers";
import { mcpIndexCard, mcpSkillDocument } from "../mcp/skills";

// Skills: how the agent learns to use project_cli, disclosed progressively. A skill is a module.
// The prompt carries one index card per visible skill; the rest (each action's input fields,
// example and pitfalls) is the skill's document, which the agent reads on demand through
// project_cli itself ({module: "skills", method: "read"}), all derived from the ModuleDefinition.
// Visibility is never authority: the router and the run's module allow-list decide what runs,
// and neither looks at what is visible (agent-tool-protocol.md §4).

/** The pseudo-module that reads skills; it touches no user data, so it needs no credential. */
export const SKILLS_MODULE = "skills";

/** Every skill's name (a registered module's), in registry order. */
export const SKILL_NAMES: readonly string[] = PROJECT_CLI_MODULE_DEFINITIONS.map((m) => m.name);

const BY_NAME: ReadonlyMap<string, ModuleDefinition> = new Map(PROJECT_CLI_MODULE_DEFINITIONS.map((m) => [m.name, m]));

/**
 * The skills a run shows: those the run may use, less those the user or the run's binding hid.
 * A skill outside the allow-list would only invite calls that fail, so it is not shown either.
 */
export function visibleSkills({ allowed, hidden }: { allowed: readonly string[]; hidden: readonly string[] }): string[] {
  return SKILL_NAMES.filter((name) => allowed.includes(name) && !hidden.includes(name));
}

/** What a settings page lists: each skill, what it is for, and its actions. */
export function skillCatalog(): { name: string; summary: string; actions: string[] }[] {
  return PROJECT_CLI_MODULE_DEFINITIONS.map((m) => ({ name: m.name, summary: m.summary, actions: Object.keys(m.methods) }));
}

/** One line: the skill's name, its actions, what it is for. */
export function skillIndexCard(name: string): string {
  const skill = BY_NAME.get(name);
  if (!skill) throw new Error(`No skill named ${name}`);
  return `- ${skill.name} (${Object.keys(skill.methods).join(", ")}): ${skill.summary}`;
}

type ActionDocument = {
  action: string;
  kind: "read" | "write";
  does: string;
  input: InputSchemaDescription;
  example: { module: string; method: string; input: unknown };
  pitfalls?: readonly string[];
};

// The summary is left out: the index card the agent already has says it.
export type SkillDocument = { skill: string; legend: string; rules: readonly string[]; actions: ActionDocument[] };

const LEGEND = "In input, a field ending in ? is optional; ids come from earlier results.";

function actionDocument(module: string, method: string): ActionDocument {
  const action = findAction(module, method)!;
  return {
    action: `${module}.${method}`,
    kind: action.kind,
    does: action.input.description ?? "",
    input: describeInputSchema(action.input),
    example: { module, method, input: action.example },
    ...(action.pitfalls ? { pitfalls: action.pitfalls } : {}),
  };
}

/** A skill's document, whole or for one of its methods. */
export function skillDocument(name: string, method?: string): SkillDocument {
  const skill = BY_NAME.get(name);
  if (!skill) throw new Error(`No skill named ${name}`);
  const methods = method === undefined ? Object.keys(skill.methods) : [method];
  return { skill: skill.name, legend: LEGEND, rules: skill.rules, actions: methods.map((m) => actionDocument(skill.name, m)) };
}

const skillsInputs = {
  list: () => z.strictObject({}).describe("The index card of every skill you can see"),
  read: () =>
    z
      .strictObject({
        skill: z.string().min(1).max(64).describe("The skill's name, as its index card gives it"),
        action: z.string().min(1).max(64).optional().describe("One of its actions, e.g. read; every action when absent"),
      })
      .describe("A skill's document: each action's input fields, an example call and pitfalls"),
} as const;

/** The skills pseudo-module's documents, for the model and the tests. */
export const SKILLS_METHODS: readonly string[] = Object.keys(skillsInputs);

function invalidInput(method: string, schema: z.ZodType, error: z.ZodError): ToolError {
  return new ToolError("INVALID_ACTION_INPUT", `${SKILLS_MODULE}.${method} input does not match method schema`, {
    details: {
      module: SKILLS_MODULE,
      method,
      input_schema: describeInputSchema(schema),
      issues: error.issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    },
  });
}

/**
 * Answers a call of the skills pseudo-module, showing only the skills in `visible` and the MCP
 * servers the run may use (`mcp`, each a skill of its own).
 */
export function runSkillsCall({ method, input, visible: builtIn, mcp = [] }: { method: string; input: unknown; visible: readonly string[]; mcp?: readonly RunMcpServer[] }): CliOutput {
  const visible = [...builtIn, ...mcp.map((s) => s.name)];
  const fail = (error: ToolError): CliOutput => ({ ok: false, module: SKILLS_MODULE, method, error: error.toBody() });
  const ok = (data: unknown): CliOutput => ({ ok: true, module: SKILLS_MODULE, method, data });
  if (method === "list") {
    const schema = skillsInputs.list();
    const parsed = schema.safeParse(input);
    if (!parsed.success) return fail(invalidInput(method, schema, parsed.error));
    return ok({
      skills: [...builtIn.map((name) => ({ name, card: skillIndexCard(name).slice(2) })), ...mcp.map((s) => ({ name: s.name, card: mcpIndexCard(s).slice(2) }))],
    });
  }
  if (method !== "read") {
    return fail(new ToolError("UNKNOWN_ACTION", `project_cli has no action ${SKILLS_MODULE}.${method}`, { details: { available: SKILLS_METHODS.map((m) => `${SKILLS_MODULE}.${m}`) } }));
  }
  const schema = skillsInputs.read();
  const parsed = schema.safeParse(input);
  if (!parsed.success) return fail(invalidInput(method, schema, parsed.error));
  const { skill, action } = parsed.data;
  // A hidden skill and a missing one answer alike: what is hidden stays unseen.
  if (!visible.includes(skill)) {
    return fail(new ToolError("SKILL_NOT_FOUND", `No skill named ${skill} is available; read one of: ${visible.join(", ") || "(none)"}`, { details: { skills: [...visible] } }));
  }
  // `read` and `calendar.read` name the same action.
  const one = action?.startsWith(`${skill}.`) ? action.slice(skill.length + 1) : action;
  const server = mcp.find((s) => s.name === skill);
  if (server) {
    const document = mcpSkillDocument(server, one);
    if (document) return ok(document);
    const actions = server.tools.map((t) => t.name);
    return fail(new ToolError("UNKNOWN_ACTION", `The ${skill} skill has no action ${one}; its actions: ${actions.join(", ")}`, { details: { available: actions } }));
  }
  if (one !== undefined && !findAction(skill, one)) {
    const actions = Object.keys(BY_NAME.get(skill)!.methods);
    return fail(new ToolError("UNKNOWN_ACTION", `The ${skill} skill has no action ${one}; its actions: ${actions.join(", ")}`, { details: { available: actions } }));
  }
  return ok(skillDocument(skill, one));
}
