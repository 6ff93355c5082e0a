import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { TokenUsage } from "../kernel/runs";

const COUNTS = ["inputTokens", "outputTokens", "totalTokens", "cachedInputTokens", "reasoningTokens"] as const;

/** True when the usage holds at least one count; a runner that reported none has unknown usage. */
export function hasCounts(usage: TokenUsage | null | undefined): usage is TokenUsage {
  return !!usage && COUNTS.some((k) => typeof usage[k] === "number");
}

/** Only the counts that are numbers: an unreported count stays absent. */
export function knownCounts(usage: Partial<Record<(typeof COUNTS)[number], number | null | undefined>>): TokenUsage {
  const out: TokenUsage = {};
  for (const k of COUNTS) {
    const v = usage[k];
    if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  }
  if (out.totalTokens === undefined && out.inputTokens !== undefined && out.outputTokens !== undefined) out.totalTokens = out.inputTokens + out.outputTokens;
  return out;
}

/**
 * The run's closing events with AG-UI 1.0's `usage` (one TokenUsage entry: the run's model) on the
 * terminal RUN_FINISHED or RUN_ERROR, when the runner reported any count.
 */
export function withRunUsage(closing: AgUiEvent[], usage: TokenUsage | undefined, model: string | undefined): AgUiEvent[] {
  if (!hasCounts(usage)) return closing;
  const entry = { ...(model ? { model } : {}), ...knownCounts(usage) };
  return closing.map((e) => (e.type === EventType.RUN_FINISHED || e.type === EventType.RUN_ERROR ? { ...e, usage: [entry] } : e));
}

/** Input, output and total, for a wire that carries all three or nothing (the Agent API's `usage`); null unless both are known. */
export function completeCounts(usage: TokenUsage | null | undefined): { inputTokens: number; outputTokens: number; totalTokens: number } | null {
  if (typeof usage?.inputTokens !== "number" || typeof usage.outputTokens !== "number") return null;
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens ?? usage.inputTokens + usage.outputTokens };
}

/** Two runs' (or steps') usage added: a count stays absent only when neither reported it. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const out: TokenUsage = { ...a };
  for (const k of COUNTS) if (typeof b[k] === "number") out[k] = (out[k] ?? 0) + b[k];
  return out;
}
