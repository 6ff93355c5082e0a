import "server-only";
import type { z } from "zod";
import type { toolAgentOutputSchema } from "@/server/protocols/runner/host-api";
import type { UiHints } from "./module";
import type { CliOutput } from "./router";
import { failureHints, successHints } from "./ui-hints";

// The runtime post-processor: turns the CLI's raw result into the ToolAgentOutput that goes
// into TOOL_CALL_RESULT, `metadata.tool_agent_output`, history and context rebuilds, and
// into the text the model reads (the result's full JSON, never a summary).

/** A ToolAgentOutput (the wire schema in protocols/runner/host-api.ts) as project_cli writes it. */
export type ToolAgentOutput = Omit<z.infer<typeof toolAgentOutputSchema>, "tool_name" | "ui_hints"> & {
  tool_name: "project_cli";
  ui_hints: UiHints | null;
};

/** A call that did its main work but not all of it (an attendee who could not be invited). */
function isPartial(data: unknown): boolean {
  const notInvited = (data as { not_invited?: unknown } | null)?.not_invited;
  return Array.isArray(notInvited) && notInvited.length > 0;
}

/** `hints` builds the card's ui_hints when the action is not a module's own (an MCP server's tool). */
export function postProcess(opts: { toolCallId: string; args: unknown; outcome: CliOutput; hints?: (outcome: CliOutput) => UiHints | null }): {
  output: ToolAgentOutput;
  toolResponseText: string;
} {
  const { outcome } = opts;
  const base = { tool_name: "project_cli" as const, tool_call_id: opts.toolCallId, tool_call_args: opts.args };
  if (outcome.ok) {
    const result = { module: outcome.module, method: outcome.method, data: outcome.data };
    return {
      output: {
        ...base,
        status: isPartial(outcome.data) ? "partial" : "success",
        result,
        error: null,
        ui_hints: opts.hints ? opts.hints(outcome) : successHints(outcome.module, outcome.method, outcome.data),
      },
      toolResponseText: JSON.stringify(result),
    };
  }
  return {
    output: {
      ...base,
      status: "failure",
      result: null,
      error: outcome.error,
      ui_hints: opts.hints ? opts.hints(outcome) : failureHints(outcome.module, outcome.method, outcome.error),
    },
    toolResponseText: JSON.stringify({ status: "failure", error: outcome.error }),
  };
}
