// What every client test needs from the Dispatch side: the AG-UI endpoint, the user texts that
// script the fake model (test/fake-llm.ts), and the server's own view of a run and of the model.
import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { baseUrl } from "@/test/helpers";
import { paced } from "@/test/runs";

export { waitForRunEnd } from "@/test/runs";

/** POST /api/v1/ag-ui: the AG-UI-native door the clients are pointed at. */
export const agUiUrl = (): string => `${baseUrl()}/api/v1/ag-ui`;

/** A word unique to one test, to find its model calls. */
export const marker = (prefix: string): string => `${prefix}${randomUUID().slice(0, 8)}`;

/** A user text whose answer makes project_cli render a calendar card. */
export const CARD_TURN = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]] what is on that day';

/** A user text whose answer echoes what the model received, one line a message. */
export const ECHO_TURN = "[[show:messages]] and three";

/** A user text whose answer streams slowly enough (word by word) to stop or rejoin mid-way. */
export function slowTurn(word: string, delayMs = 150): string {
  return paced(delayMs, `${word} ${"one two three four five six seven eight nine ten ".repeat(3).trim()}`);
}

/** The fake model's answer to `slowTurn(word, …)`, as the client should hold it at the end. */
export function slowAnswer(word: string): string {
  return `You said: ${word} ${"one two three four five six seven eight nine ten ".repeat(3).trim()}`;
}

/** The fake model's calls whose latest user text contains `word`, with how each ended. */
export type ModelCall = { state: "open" | "done" | "aborted"; body: { messages: { role: string; content: unknown }[] } };

export async function modelCalls(word: string): Promise<ModelCall[]> {
  const res = await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(word)}`);
  if (!res.ok) throw new Error(`fake LLM /calls answered ${res.status}`);
  return (await res.json()) as ModelCall[];
}

type Message = { role: string; content?: unknown; metadata?: unknown };

/** The `ui_schema` of the tool message's metadata (where AG-UI 1.0 clients keep the card), if any. */
export function cardOf(messages: readonly Message[]): unknown {
  const tool = messages.find((m) => m.role === "tool");
  return (tool?.metadata as { ui_schema?: unknown } | undefined)?.ui_schema;
}

/** The model's view of the conversation, from the `[[show:messages]]` answer: the role of each message. */
export function rolesSeenByModel(echo: unknown): string[] {
  return [...String(echo).matchAll(/^(user|assistant|tool): /gm)].map((m) => m[1]!);
}
