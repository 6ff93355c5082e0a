import "server-only";
import type { AgentCapabilities } from "@ag-ui/core";
import { z } from "zod";
import { MAX_AGENT_STEPS } from "../../agent/constants";
import { env } from "../../env";
import { modelCatalog } from "../../models/catalog";
import { PROJECT_CLI_MODULES } from "../../tools/project-cli/actions";
import { projectCliArgsSchema, projectCliToolDescription, PROJECT_CLI_TOOL_NAME } from "../../tools/project-cli/tool";

// What GET /api/v1/ag-ui/info declares, read off the running configuration rather than written
// down: the modules project_cli runs, the models configured (reasoning streams only from a model
// server: the offline demo model never thinks aloud), the run's limits. Every `true` here has a
// test that exercises it (server/http/ag-ui-capabilities.integration-test.ts), which fails for a
// capability declared and not delivered, or one it does not know how to check.

let computed: AgentCapabilities | null = null;

export function agentCapabilities(): AgentCapabilities {
  computed ??= describe();
  return computed;
}

function describe(): AgentCapabilities {
  const modelServer = modelCatalog().some((m) => m.provider !== "demo");
  return {
    identity: {
      name: "dispatch",
      type: "dispatch-agent",
      description: `Dispatch's built-in agent: answers with the project_cli tool (${PROJECT_CLI_MODULES.join(", ")}) and the client's own tools`,
      provider: "Dispatch",
    },
    transport: { streaming: true, websocket: false, httpBinary: true, pushNotifications: false, resumable: true },
    tools: {
      supported: true,
      clientProvided: true,
      parallelCalls: false,
      items: [{ name: PROJECT_CLI_TOOL_NAME, description: projectCliToolDescription, parameters: z.toJSONSchema(projectCliArgsSchema) as Record<string, unknown> }],
    },
    // A thread keeps its latest state (thread_states); the built-in agent changes it with
    // update_state, streamed as STATE_DELTA (docs/ag-ui.md, "Shared state").
    state: { snapshots: true, deltas: true, memory: true, persistentState: true },
    reasoning: { supported: modelServer, streaming: modelServer, encrypted: false },
    // Documents (PDF, text, Markdown, CSV, JSON) reach every model: as file parts where it takes
    // them, else as their text (docs/attachments.md).
    multimodal: { input: { image: true, audio: false, video: false, pdf: true, file: false } },
    execution: { codeExecution: false, maxIterations: MAX_AGENT_STEPS, maxExecutionTime: env.RUN_DEADLINE_SECONDS * 1000 },
    humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true },
    // No model list here: /info answers without authentication, and a model's label can name the
    // host it runs on; signed-in clients read GET /api/v1/models.
  };
}
