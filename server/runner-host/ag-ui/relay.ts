import "server-only";
import { EventType, type Interrupt } from "@ag-ui/core";
import { InvalidEventError, parseAgUiEvent, unknownEventFields, type AgUiEvent } from "../../protocols/ag-ui/events";
import type { AgentToolCall } from "../../approvals/agent-interrupts";
import { RunnerFailure, type EmitExtras, type TokenUsage } from "../../kernel/runs";

// What Dispatch does with each event an AG-UI agent streams, before the engine's sequence guard
// sees it: the engine owns the run's lifecycle (RUN_STARTED, and the terminal event it writes
// itself), the thread is Dispatch's record (an agent's MESSAGES_SNAPSHOT is not relayed), empty
// deltas are dropped (the guard forbids them), and a tool call's name and arguments go with its
// result into the thread, so the next run's history holds the call.

export type RelayEnd = { kind: "finished"; result: unknown } | { kind: "interrupted"; interrupts: Interrupt[] } | { kind: "failed"; failure: RunnerFailure };

type AgentUsage = Partial<Record<keyof TokenUsage, number>>;
const USAGE_FIELDS = ["inputTokens", "outputTokens", "totalTokens", "cachedInputTokens", "reasoningTokens"] as const;

/** The run's usage as the agent reported it on its terminal event (one entry per model), summed; a count nobody reported stays absent. */
export function summedUsage(entries: readonly AgentUsage[] | undefined): TokenUsage | undefined {
  if (!entries?.length) return undefined;
  const total: TokenUsage = {};
  for (const entry of entries) {
    for (const field of USAGE_FIELDS) {
      const n = entry[field];
      if (typeof n === "number" && Number.isFinite(n) && n >= 0) total[field] = (total[field] ?? 0) + n;
    }
  }
  return Object.keys(total).length > 0 ? total : undefined;
}

type ToolCallSeen = { name: string; args: string; parentMessageId?: string };

const EMPTY_DELTA_TYPES: ReadonlySet<string> = new Set([EventType.TEXT_MESSAGE_CONTENT, EventType.TOOL_CALL_ARGS, EventType.REASONING_MESSAGE_CONTENT]);

const metadataOf = (call: AgentToolCall): Record<string, unknown> => ({
  tool_name: call.name,
  tool_call_args: call.args,
  ...(call.parentMessageId ? { parent_message_id: call.parentMessageId } : {}),
});

function parsedArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** The agent's event as AG-UI 1.0 defines it, with top-level fields it does not define left out (as @ag-ui/client does). */
export function agentEvent(raw: unknown): AgUiEvent {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InvalidEventError("an event is not a JSON object");
  const extra = unknownEventFields(raw as { type: unknown });
  const value = extra.length === 0 ? raw : Object.fromEntries(Object.entries(raw).filter(([key]) => !extra.includes(key)));
  return parseAgUiEvent(value);
}

export class AgUiRelay {
  private readonly toolCalls = new Map<string, ToolCallSeen>();
  /** Set once the agent's run ended (RUN_FINISHED or RUN_ERROR) or its stream broke a rule. */
  end: RelayEnd | null = null;
  /** What the agent's terminal event says the run used. */
  usage: TokenUsage | undefined;

  /**
   * `carried`: tool calls an earlier run streamed and left waiting on an interrupt this run
   * answers; the agent's result for one is the call's answer, recorded with the call.
   */
  constructor(
    private readonly emit: (event: AgUiEvent, extras?: EmitExtras) => void,
    private readonly carried: Map<string, AgentToolCall> = new Map(),
  ) {}

  /** Takes one decoded event of the agent's stream; after `end` is set, the rest is ignored. */
  accept(raw: unknown): void {
    if (this.end) return;
    let event: AgUiEvent;
    try {
      event = agentEvent(raw);
    } catch (err) {
      this.fail("agent.malformed_event", `The agent sent an event that is not valid AG-UI: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    try {
      this.relay(event);
    } catch (err) {
      // The engine's sequence guard refused it: the log and every client stay valid, the run ends.
      this.fail("agent.invalid_sequence", `The agent's events broke the AG-UI event rules: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private relay(event: AgUiEvent): void {
    switch (event.type) {
      case EventType.RUN_STARTED:
      case EventType.MESSAGES_SNAPSHOT:
        return;
      case EventType.RUN_FINISHED:
        this.usage = summedUsage(event.usage);
        // The agent waits for a person: its interrupts become the run's approvals (agent-runner.ts).
        if (event.outcome && typeof event.outcome === "object" && event.outcome.type === "interrupt") {
          this.end = { kind: "interrupted", interrupts: event.outcome.interrupts as Interrupt[] };
          return;
        }
        this.end = { kind: "finished", result: event.result };
        return;
      case EventType.RUN_ERROR:
        this.usage = summedUsage(event.usage);
        this.fail("agent.run_error", `The agent reported an error${event.code ? ` (${event.code})` : ""}: ${event.message}`);
        return;
      case EventType.TOOL_CALL_START:
        this.toolCalls.set(event.toolCallId, { name: event.toolCallName, args: "", ...(event.parentMessageId ? { parentMessageId: event.parentMessageId } : {}) });
        break;
      case EventType.TOOL_CALL_ARGS: {
        const call = this.toolCalls.get(event.toolCallId);
        if (call) call.args += event.delta;
        break;
      }
      case EventType.TOOL_CALL_RESULT: {
        const earlier = this.toolCalls.has(event.toolCallId) ? undefined : this.carried.get(event.toolCallId);
        if (earlier) {
          this.carried.delete(event.toolCallId);
          this.emit(event, { answersEarlierCall: true, messageMetadata: metadataOf(earlier) });
        } else this.emit(event, { messageMetadata: this.resultMetadata(event.toolCallId) });
        return;
      }
      default:
        break;
    }
    if (EMPTY_DELTA_TYPES.has(event.type) && (event as { delta?: string }).delta === "") return;
    this.emit(event);
  }

  private resultMetadata(toolCallId: string): Record<string, unknown> {
    const call = this.callOf(toolCallId);
    return call ? metadataOf(call) : {};
  }

  /** A call the agent streamed in this run, as an interrupt about it keeps it. */
  callOf(toolCallId: string): AgentToolCall | undefined {
    const call = this.toolCalls.get(toolCallId);
    return call ? { name: call.name, args: parsedArgs(call.args), ...(call.parentMessageId ? { parentMessageId: call.parentMessageId } : {}) } : undefined;
  }

  fail(code: string, message: string): void {
    this.end ??= { kind: "failed", failure: new RunnerFailure(code, message) };
  }
}
