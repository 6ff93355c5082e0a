import "server-only";
import { AGENT_RUNNER_ID } from "../runs/runners/builtin-id";
import { manifestSchema, type AgentRunnerManifest } from "../protocols/runner/manifest";
import { PROJECT_CLI_SUBJECTS } from "../tools/project-cli/prose";
import { PROJECT_CLI_TOOL_NAME } from "../tools/project-cli/tool";
import { upsertBuiltinRunner } from "./repository/runners";

// The built-in agent's manifest. It runs in-process (no HTTP hop), but it is listed, bound
// and authorized exactly like an external runner.
export const BUILTIN_MANIFEST: AgentRunnerManifest = manifestSchema.parse({
  id: AGENT_RUNNER_ID,
  name: "agent",
  label: { en_US: "Dispatch agent", zh_Hans: "Dispatch 智能体" },
  description: { en_US: `The built-in tool-loop agent: ${PROJECT_CLI_SUBJECTS} through ${PROJECT_CLI_TOOL_NAME}.` },
  capabilities: { streaming: true, tool_calling: true, multimodal_input: true, interrupt: true, stateful_session: true, self_managed_context: true },
  permissions: { models: ["invoke", "stream"], tools: ["detail", "call"], history: ["page"] },
  context: { ownership: "self_managed", bootstrap: "current_event" },
  config_schema: [],
  metadata: { builtin: true },
});

let registered: Promise<void> | null = null;

/** Lists the built-in runner in agent_runners once per process, so bindings can name it. */
export function ensureBuiltinRunner(): Promise<void> {
  registered ??= upsertBuiltinRunner(BUILTIN_MANIFEST).catch((err: unknown) => {
    registered = null;
    throw err;
  });
  return registered;
}

export function isBuiltinRunner(id: string): boolean {
  return id === AGENT_RUNNER_ID;
}
