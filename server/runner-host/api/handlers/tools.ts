import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { resolveTimeZone } from "../../../lib/time";
import { findRunInput } from "../../../runs/repository/runs";
import { PROJECT_CLI_TOOL_NAME, projectCliArgsSchema, projectCliToolDescription, runProjectCli } from "../../../tools/project-cli/tool";
import { gateRunnerToolCall } from "../../../approvals/runner-gate";
import { deletePendingCard } from "../../../approvals/repository";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";
import { deliverHostToolCall, type HostToolCall } from "../../result-tool-calls";

// tools/*: host tools a runner may call for the run's user. project_cli runs exactly as it
// does for the built-in agent: a credential minted for this run and user, the CLI child
// process, the same post-processing into ToolAgentOutput, the same compiled card. A write runs
// once per tool_call_id in the run: calling again with the same id answers the first result.
// Each answered call joins the run's events before the runner gets its answer
// (result-tool-calls.ts), so the thread shows it as it shows the built-in agent's calls.

const TOOL_PARAMETERS = { [PROJECT_CLI_TOOL_NAME]: z.toJSONSchema(projectCliArgsSchema) as Record<string, unknown> };

function unknownTool(name: string): HostApiFailure {
  return new HostApiFailure("not_found", `Tool ${name} does not exist on this host`);
}

const runInputSchema = z
  .object({ forwardedProps: z.unknown().optional(), context: z.array(z.object({ description: z.string(), value: z.string() })).catch([]) })
  .catch({ forwardedProps: undefined, context: [] });

/** The run's time zone, as the built-in agent would resolve it from the run's input. */
async function runTimeZone(runId: string): Promise<string> {
  const run = await findRunInput({ id: runId });
  return resolveTimeZone(runInputSchema.parse(run?.input ?? {}));
}

export const getToolDetail: JsonHandler<"tools/get_detail"> = async ({ params }) => {
  if (params.tool_name !== PROJECT_CLI_TOOL_NAME) throw unknownTool(params.tool_name);
  return { tool_name: PROJECT_CLI_TOOL_NAME, description: projectCliToolDescription, parameters: TOOL_PARAMETERS[PROJECT_CLI_TOOL_NAME] };
};

export const callTool: JsonHandler<"tools/call"> = async ({ params, session, signal }) => {
  if (params.tool_name !== PROJECT_CLI_TOOL_NAME) throw unknownTool(params.tool_name);
  const toolCallId = params.tool_call_id ?? `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
  // Writes the run's approval policy reserves for a person wait for one (server/approvals/runner-gate.ts).
  const gate = await gateRunnerToolCall({ run: { id: session.runId, threadId: session.threadId, userId: session.userId }, toolCallId, args: params.parameters });
  const carried = gate.carried ? { carried: gate.carried } : {};
  let call: HostToolCall;
  if ("answer" in gate) {
    const { output, toolResponseText, uiSchema } = gate.answer;
    call = { toolCallId, toolName: PROJECT_CLI_TOOL_NAME, args: params.parameters, outcome: { toolResponseText, uiSchema, output }, ...(gate.pending ? { pending: gate.pending } : {}), ...carried };
  } else {
    const r = await runProjectCli({
      userId: session.userId,
      runId: session.runId,
      toolCallId,
      callRunId: gate.callRunId,
      args: gate.run,
      signal,
      timeZone: await runTimeZone(session.runId),
    });
    call = { toolCallId, toolName: PROJECT_CLI_TOOL_NAME, args: gate.run, outcome: { toolResponseText: r.toolResponseText, uiSchema: r.uiSchema, output: r.output }, ...carried };
  }
  await deliverHostToolCall(session.runId, call);
  // The call's answer takes the place of the pending card it left.
  if (call.carried) await deletePendingCard({ threadId: session.threadId, approvalId: call.carried.approvalId });
  const { output, toolResponseText, uiSchema } = call.outcome;
  return { tool_name: PROJECT_CLI_TOOL_NAME, tool_call_id: toolCallId, output, tool_response_text: toolResponseText, ui_schema: uiSchema };
};
