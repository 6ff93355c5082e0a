import "server-only";
import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { TokenUsage } from "../runs/types";
import { metrics } from "./metrics";

// What the metrics learn from one run executing here: its first runner event (TTFE), its tool
// calls and how each ended, and at its end its status, duration and tokens.

const ENGINE_EVENTS: ReadonlySet<string> = new Set([EventType.RUN_STARTED, EventType.STATE_SNAPSHOT]);
const TOKEN_KINDS = [
  ["input", "inputTokens"],
  ["output", "outputTokens"],
  ["cached_input", "cachedInputTokens"],
  ["reasoning", "reasoningTokens"],
] as const;

/** A tool result's status as the tool protocol reports it: `{"status":"failure", ...}` is a failure. */
function toolStatus(content: unknown): "ok" | "failure" {
  if (typeof content !== "string" || !content.startsWith("{")) return "ok";
  try {
    return (JSON.parse(content) as { status?: unknown }).status === "failure" ? "failure" : "ok";
  } catch {
    return "ok";
  }
}

export type RunMeter = {
  event(event: AgUiEvent): void;
  end(end: { status: string; usage?: TokenUsage | null; model?: string | null }): void;
};

export function meterRun({ protocol }: { protocol: string }): RunMeter {
  const started = performance.now();
  let waitingForFirst = true;
  const open = new Set<string>();
  let ended = false;
  metrics.activeRuns.inc();
  return {
    event(event) {
      if (waitingForFirst && !ENGINE_EVENTS.has(event.type)) {
        waitingForFirst = false;
        metrics.timeToFirstEvent.observe({ protocol }, (performance.now() - started) / 1000);
      }
      if (event.type === EventType.TOOL_CALL_START) open.add(event.toolCallId);
      else if (event.type === EventType.TOOL_CALL_RESULT && open.delete(event.toolCallId)) metrics.toolCalls.inc({ status: toolStatus(event.content) });
    },
    end({ status, usage, model }) {
      if (ended) return;
      ended = true;
      metrics.activeRuns.dec();
      metrics.runs.inc({ status, protocol });
      metrics.runDuration.observe({ protocol, status }, (performance.now() - started) / 1000);
      if (open.size > 0) metrics.toolCalls.inc({ status: "no_result" }, open.size);
      for (const [kind, field] of TOKEN_KINDS) {
        const n = usage?.[field];
        if (typeof n === "number" && n > 0) metrics.tokens.inc({ kind, model: model ?? "unknown" }, n);
      }
    },
  };
}
