// frontend-tools: hands work to the client's own tools. The client declares its tools with the
// run (AG-UI `tools`, the Agent API's `tools`); the runner calls one through its result stream
// and ends the run; the client runs it and sends the result with its next run, which brings the
// answer back here (`toolResults(ctx)`), and the runner says what it got.
//   "use get_weather {"city":"Paris"}" calls that tool with those arguments; any other text calls
//   the client's first tool with {"request": text}.
// `RUNNER_SECRET=s tsx examples/runners/frontend-tools.ts`
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, runCompleted } from "../../sdk/runner/results";
import { callClientTool, clientTools, toolResults } from "../../sdk/runner/tool-calls";
import { inputText } from "./echo";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const FRONTEND_TOOLS_RUNNER_ID = "plugin:dispatch-examples/frontend-tools/default";

const USE = /^\s*use\s+([\w.-]+)\s*(\{[^]*\})?\s*$/i;

function parseArgs(json: string | undefined): Record<string, unknown> | null {
  if (!json) return {};
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const frontendToolsRunner = defineRunner({
  manifest: {
    id: FRONTEND_TOOLS_RUNNER_ID,
    name: "default",
    label: { en_US: "Frontend tools", zh_Hans: "前端工具" },
    description: { en_US: "Calls the client's own tools and answers with what the client sent back." },
    capabilities: { streaming: true, tool_calling: true },
    permissions: {},
    context: { bootstrap: "none" },
  },
  async *run(ctx) {
    const answers = toolResults(ctx);
    if (answers.length > 0) {
      const text = answers.map((a) => `The client answered ${a.tool_name}: ${a.content}`).join("\n");
      yield completed(text);
      yield runCompleted({ finish_reason: "stop" });
      return;
    }
    const tools = clientTools(ctx);
    const text = inputText(ctx);
    const asked = USE.exec(text);
    const tool = asked ? tools.find((t) => t.name === asked[1]) : tools[0];
    const args = asked ? parseArgs(asked[2]) : { request: text };
    if (!tool || !args) {
      yield completed(tools.length === 0 ? "This client declared no tools I could call." : `Say "use <tool> {json}" with one of: ${tools.map((t) => t.name).join(", ")}.`);
      yield runCompleted({ finish_reason: "stop" });
      return;
    }
    // The run ends here; the client's next run brings the result.
    yield callClientTool(tool.name, args);
    yield runCompleted({ finish_reason: "tool_calls" });
  },
});

export const startFrontendToolsRunner = (opts: StartOptions) => startRunners({ ...opts, runners: [frontendToolsRunner] });

runIfMain(import.meta.url, startFrontendToolsRunner);
