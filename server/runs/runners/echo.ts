import "server-only";
import { EventType } from "@ag-ui/core";
import { randomUUID } from "node:crypto";
import { userMessageParts } from "../../protocols/ag-ui/run-input";
import type { Runner, RunnerInput, RunnerResult } from "../types";

// A diagnostic runner with no model: it streams the user's text back word by word,
// optionally paced by `forwardedProps.echo.delayMs` (at most 2 s a word) so streaming,
// cancel and resume can be watched. It keeps the run engine honest independent of any agent.
const MAX_DELAY_MS = 2_000;

function pacing(forwardedProps: unknown): number {
  const delay = (forwardedProps as { echo?: { delayMs?: unknown } } | undefined)?.echo?.delayMs;
  return typeof delay === "number" && Number.isFinite(delay) ? Math.min(MAX_DELAY_MS, Math.max(0, delay)) : 0;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms === 0) return void setImmediate(resolve);
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });
}

export const echoRunner: Runner = {
  id: "dispatch:builtin/echo/default",
  async run({ input, signal, emit }: RunnerInput): Promise<RunnerResult> {
    const delayMs = pacing(input.forwardedProps);
    const { text } = userMessageParts(input);
    const messageId = `msg_${randomUUID()}`;
    emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
    const words = `You said: ${text || "(nothing)"}`.split(/(?<=\s)/);
    for (const word of words) {
      if (signal.aborted) break;
      emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: word });
      // Yield between tokens so cancel and other runs get a turn, as a real stream would.
      await pause(delayMs, signal);
    }
    emit({ type: EventType.TEXT_MESSAGE_END, messageId });
    return { usage: { inputTokens: text.length, outputTokens: words.length, totalTokens: text.length + words.length }, model: "echo" };
  },
};
