import "server-only";
import { EventType } from "@ag-ui/core";
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "@opentelemetry/semantic-conventions/incubating";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { TokenUsage } from "../kernel/runs";
import { metrics } from "./metrics";
import { runTraceContext, tracer } from "./tracing";

// What the metrics and the trace learn from one run executing here: its span (GenAI's
// invoke_agent), a span per tool call (execute_tool, with project_cli's module and method), its
// first runner event (TTFE), and at its end its status, duration and tokens. Built from the run's
// events, so the built-in agent's and an external runner's tool calls are measured alike.

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

/** project_cli's module and method, from the call's arguments once they are complete. */
function moduleAndMethod(args: string): { module?: string; method?: string } {
  try {
    const parsed = JSON.parse(args) as { module?: unknown; method?: unknown };
    return {
      ...(typeof parsed.module === "string" ? { module: parsed.module } : {}),
      ...(typeof parsed.method === "string" ? { method: parsed.method } : {}),
    };
  } catch {
    return {};
  }
}

type OpenCall = { span: Span; args: string };

export type RunMeter = {
  /** Runs the runner inside the run's span, so the spans it starts (model steps, runner calls) nest under it. */
  within<T>(work: () => Promise<T>): Promise<T>;
  event(event: AgUiEvent): void;
  end(end: { status: string; usage?: TokenUsage | null; model?: string | null; errorCode?: string | null }): void;
};

/** The run's span, under its kept trace, so a run executed away from its request (queued, taken over) joins it too. */
function startRunSpan(run: Parameters<typeof meterRun>[0]): { span: Span; runContext: Context } {
  const parent = runTraceContext({ traceParent: run.traceParent ?? "", traceState: run.traceState ?? null }) ?? context.active();
  const span = tracer().startSpan(`invoke_agent ${run.runner ?? "dispatch"}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: "invoke_agent",
      [ATTR_GEN_AI_AGENT_NAME]: run.runner ?? "dispatch",
      [ATTR_GEN_AI_CONVERSATION_ID]: run.threadId,
      "dispatch.run.id": run.runId,
      "dispatch.task.id": run.id,
      "dispatch.protocol": run.protocol,
    },
  }, parent);
  return { span, runContext: trace.setSpan(parent, span) };
}

/** A tool call's span from its start to its result, and its count by status. */
function meterToolCall(event: AgUiEvent, open: Map<string, OpenCall>, runContext: Context): void {
  switch (event.type) {
    case EventType.TOOL_CALL_START:
      open.set(event.toolCallId, {
        args: "",
        span: tracer().startSpan(
          `execute_tool ${event.toolCallName}`,
          { attributes: { [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool", [ATTR_GEN_AI_TOOL_NAME]: event.toolCallName, [ATTR_GEN_AI_TOOL_CALL_ID]: event.toolCallId } },
          runContext,
        ),
      });
      return;
    case EventType.TOOL_CALL_ARGS: {
      const call = open.get(event.toolCallId);
      if (call) call.args += event.delta;
      return;
    }
    case EventType.TOOL_CALL_RESULT: {
      const call = open.get(event.toolCallId);
      if (!call) return;
      open.delete(event.toolCallId);
      const status = toolStatus(event.content);
      metrics.toolCalls.inc({ status });
      const { module, method } = moduleAndMethod(call.args);
      if (module) call.span.setAttribute("dispatch.tool.module", module);
      if (method) call.span.setAttribute("dispatch.tool.method", method);
      call.span.setAttribute("dispatch.tool.status", status);
      if (status === "failure") call.span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool reported a failure" });
      call.span.end();
      return;
    }
    default:
      return;
  }
}

export function meterRun(run: { id: string; runId: string; threadId: string; protocol: string; runner?: string; traceParent?: string | null; traceState?: string | null }): RunMeter {
  const { protocol } = run;
  const started = performance.now();
  let waitingForFirst = true;
  const open = new Map<string, OpenCall>();
  let ended = false;
  metrics.activeRuns.inc();
  const { span, runContext } = startRunSpan(run);
  return {
    within: (work) => context.with(runContext, work),
    event(event) {
      if (waitingForFirst && !ENGINE_EVENTS.has(event.type)) {
        waitingForFirst = false;
        metrics.timeToFirstEvent.observe({ protocol }, (performance.now() - started) / 1000);
      }
      meterToolCall(event, open, runContext);
    },
    end({ status, usage, model, errorCode }) {
      if (ended) return;
      ended = true;
      metrics.activeRuns.dec();
      metrics.runs.inc({ status, protocol });
      metrics.runDuration.observe({ protocol, status }, (performance.now() - started) / 1000);
      if (open.size > 0) metrics.toolCalls.inc({ status: "no_result" }, open.size);
      for (const call of open.values()) {
        call.span.setAttribute("dispatch.tool.status", "no_result");
        call.span.end();
      }
      for (const [kind, field] of TOKEN_KINDS) {
        const n = usage?.[field];
        if (typeof n === "number" && n > 0) metrics.tokens.inc({ kind, model: model ?? "unknown" }, n);
      }
      span.setAttribute("dispatch.run.status", status);
      if (model) span.setAttribute(ATTR_GEN_AI_REQUEST_MODEL, model);
      if (typeof usage?.inputTokens === "number") span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, usage.inputTokens);
      if (typeof usage?.outputTokens === "number") span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, usage.outputTokens);
      if (status === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? "failed" });
      span.end();
    },
  };
}
