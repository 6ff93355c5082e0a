import "server-only";
import { openClientToolCalls } from "../../agent/conversation";
import { AppError } from "../../kernel/errors";
import type { RunAgentInput, ToolMessage } from "../../protocols/ag-ui/run-input";
import { findNewestRunToolEvents } from "../repository/conversation";
import type { RunToolMessage } from "../repository/runs";
import { PROJECT_CLI_TOOL_NAME } from "../../tools/project-cli/tool";
import { toolMessageText } from "./conversation-reconcile";

// A client's answers to the thread's open frontend tool calls, as the tool messages the run's
// accepting statement writes into the thread: what /history shows, the next runs' models read,
// and external runners get as tool results.

/**
 * The tool messages among `answers` that answer a call the thread really left open. `strict`
 * (POST /api/v1/ag-ui, whose client sends only what is new): any other answer is a 409; else (the
 * seed endpoint, whose clients may resend earlier answers) it is left out, as its agent reads it.
 */
export async function openCallAnswers(input: RunAgentInput, answers: readonly ToolMessage[], opts: { strict: boolean }): Promise<RunToolMessage[]> {
  const open = new Map(openClientToolCalls(await findNewestRunToolEvents({ threadId: input.threadId }), new Set([PROJECT_CLI_TOOL_NAME])).map((c) => [c.toolCallId, c]));
  return answers.flatMap((answer) => {
    const call = open.get(answer.toolCallId);
    if (!call) {
      if (!opts.strict) return [];
      const index = input.messages.indexOf(answer);
      throw new AppError(
        "CONFLICT",
        `messages[${index}] (tool message ${JSON.stringify(answer.id)}) answers tool call ${JSON.stringify(answer.toolCallId)}, which is not an open frontend tool call of this thread`,
        { field: `messages[${index}]` },
      );
    }
    open.delete(answer.toolCallId);
    return [
      {
        messageId: answer.id,
        content: toolMessageText(answer),
        metadata: { run_id: input.runId, message_id: answer.id, stage: "client_tool", tool_call_id: call.toolCallId, tool_name: call.toolName, tool_call_args: call.args },
      },
    ];
  });
}
