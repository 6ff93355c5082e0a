import "server-only";
import { z } from "zod";
import { logger } from "@/server/logger";
import { timeZoneSchema, type UiSchema } from "@/server/ui-schema/schema";
import { findAction } from "./actions";
import { DEFAULT_ALLOWED_MODULES } from "./allow-list";
import { compileStoredUiHints } from "./cards";
import { mintToolCredential } from "./credential";
import { ToolError } from "./errors";
import { postProcess, type ToolAgentOutput } from "./post-process";
import type { CliOutput } from "./router";
import { execProjectCli } from "./run-cli";
import { runSkillsCall, SKILLS_MODULE, visibleSkills } from "./skills";
import { findHiddenSkills } from "../repository/skills";
import { mcpHints } from "./ui-hints";
import { runMcpCall } from "../mcp/calls";
import { findRunMcpServers, type RunMcpServer } from "../repository/run-mcp-servers";

// The agent's single tool. The model sees a thin schema (module, method, input) and a short
// description that names no action: the skills' index cards (in the prompt) and their documents
// (read through this tool) disclose the rest. The strict per-method schemas are enforced behind
// the CLI (the tool gateway), and their mistakes come back as data the model can correct.

export const PROJECT_CLI_TOOL_NAME = "project_cli";

const TIMEOUT_MS = 30_000;

export const projectCliArgsSchema = z
  .strictObject({
    module: z.string().min(1).max(64).describe(`A skill's name from the skill index, or "${SKILLS_MODULE}" to read a skill's document`),
    method: z.string().min(1).max(64).describe("One of the skill's actions, e.g. read"),
    input: z.record(z.string(), z.unknown()).describe("The action's input object, as the skill's document gives it ({} when it takes none)"),
  })
  .describe("One project_cli action");

export const projectCliToolDescription = [
  "Reads and changes the signed-in user's data through skills. Call with {module, method, input}: module a skill's name, method one of its actions.",
  `Before first using an action, read its document: {"module":"${SKILLS_MODULE}","method":"read","input":{"skill":"<name>","action":"<action>"}} (without "action", the whole skill's); {"module":"${SKILLS_MODULE}","method":"list","input":{}} lists the skills.`,
  "A failure returns {status:\"failure\", error:{code, message, ...}}; for INVALID_ACTION_INPUT, error.input_schema and error.issues say what to fix before calling again.",
].join("\n");

/**
 * Runs one project_cli call for a run: validates the thin args, mints a credential, runs the CLI,
 * post-processes. A write runs once per (user, `callRunId`, `toolCallId`): calling again with the
 * same call answers the first result (effects.ts).
 */
export async function runProjectCli(opts: {
  userId: string;
  runId: string;
  /** The call's id as the client saw it: unique within the run it was made in. */
  toolCallId: string;
  /** The run the call was made in, when another run executes it (an approved call); defaults to `runId`. */
  callRunId?: string;
  args: unknown;
  allowedModules?: readonly string[];
  /** The skills whose documents the run may read; read from the run's user and binding when absent. */
  visibleSkills?: readonly string[];
  signal?: AbortSignal;
  timeZone?: string;
  /** The language of the call's card (BCP 47); English when absent. */
  locale?: string;
  /** The MCP servers the run may use (each a module named as the server); read from its grants when absent. */
  mcpServers?: readonly RunMcpServer[];
}): Promise<{ output: ToolAgentOutput; toolResponseText: string; uiSchema: UiSchema | null }> {
  const started = Date.now();
  const { outcome, mcp } = await execute(opts);
  const { output, toolResponseText } = postProcess({ toolCallId: opts.toolCallId, args: opts.args, outcome, ...(mcp ? { hints: mcpHints } : {}) });
  logger.info(
    {
      runId: opts.runId,
      toolCallId: opts.toolCallId,
      module: outcome.module,
      method: outcome.method,
      // Whether the user's data may have changed, for whoever reads the log after a failure.
      kind: outcome.module && outcome.method ? (mcp ? "mcp" : findAction(outcome.module, outcome.method)?.kind) : undefined,
      status: output.status,
      code: output.error?.code,
      ms: Date.now() - started,
    },
    "project_cli call",
  );
  return { output, toolResponseText, uiSchema: compileToolUiSchema(output, opts.locale) };
}

async function execute(opts: Parameters<typeof runProjectCli>[0]): Promise<{ outcome: CliOutput; mcp: boolean }> {
  const builtIn = (outcome: CliOutput) => ({ outcome, mcp: false });
  const args = projectCliArgsSchema.safeParse(opts.args);
  if (!args.success) {
    const raw = (opts.args ?? {}) as { module?: unknown; method?: unknown };
    const error = new ToolError("INVALID_TOOL_ARGS", "project_cli takes {module, method, input} and nothing else", {
      details: { issues: args.error.issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join("."), message: i.message })) },
    });
    return builtIn({ ok: false, module: typeof raw.module === "string" ? raw.module : null, method: typeof raw.method === "string" ? raw.method : null, error: error.toBody() });
  }
  const { module, method, input } = args.data;
  const allowed = opts.allowedModules ?? DEFAULT_ALLOWED_MODULES;
  // Built-in modules keep their names: a server is registered under a name no module has.
  const mcpServers = allowed.includes(module) ? [] : (opts.mcpServers ?? (await findRunMcpServers({ runId: opts.runId, userId: opts.userId })));
  if (module === SKILLS_MODULE) {
    const visible = opts.visibleSkills ?? visibleSkills({ allowed, hidden: await findHiddenSkills({ runId: opts.runId, userId: opts.userId }) });
    return builtIn(runSkillsCall({ method, input, visible, mcp: mcpServers }));
  }
  const server = mcpServers.find((s) => s.name === module);
  if (server) {
    const effectKey = { userId: opts.userId, runId: opts.callRunId ?? opts.runId, toolCallId: opts.toolCallId };
    return { outcome: await runMcpCall({ server, method, input, effectKey, signal: opts.signal }), mcp: true };
  }
  let credential: string;
  try {
    credential = mintToolCredential({
      userId: opts.userId,
      runId: opts.runId,
      modules: allowed,
      toolCall: { id: opts.toolCallId, runId: opts.callRunId },
    });
  } catch (err) {
    logger.error({ err }, "cannot mint a project_cli credential");
    return builtIn({ ok: false, module, method, error: new ToolError("TOOL_UNAVAILABLE", "project_cli is not available on this server").toBody() });
  }
  const timeZone = timeZoneSchema.safeParse(opts.timeZone);
  return builtIn(
    await execProjectCli({
      module,
      method,
      input,
      credential,
      timeZone: timeZone.success ? timeZone.data : undefined,
      signal: opts.signal,
      timeoutMs: TIMEOUT_MS,
    }),
  );
}

/**
 * The tool card for a ToolAgentOutput, fresh from runProjectCli (TOOL_CALL_RESULT) or read
 * back from `metadata.tool_agent_output` (/history): one function, so both are byte-identical for
 * the same `locale` (the reader's language; English when absent).
 * Stored outputs that no longer parse give null instead of failing the page.
 */
export function compileToolUiSchema(output: ToolAgentOutput | unknown, locale?: string): UiSchema | null {
  if (typeof output !== "object" || output === null) return null;
  const { ui_hints: hints, tool_call_id: toolId } = output as { ui_hints?: unknown; tool_call_id?: unknown };
  if (!hints) return null;
  const meta = typeof toolId === "string" && toolId.trim().length > 0 && toolId.length <= 200 ? { toolId } : undefined;
  return compileStoredUiHints(hints, { ...(meta ? { meta } : {}), ...(locale ? { locale } : {}) });
}
