import { randomUUID } from "node:crypto";
import type { Cell } from "./axes";

// What the user says in a cell, so that its executor uses the cell's tool: directives for the
// fake model (test/fake-llm.ts) behind the built-in agent, the example runners' own phrases
// (examples/runners) for an external runner.

export type ClientTool = { name: string; description: string; parameters: Record<string, unknown> };

export const WEATHER_TOOL: ClientTool = {
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
export const WEATHER_ANSWER = "Sunny, 21°C";
/** The user message that carries the client's answer where a run needs one (the seed endpoint): the fake model then shows what it was given. */
export const ANSWER_CARRIER = "[[show:messages]] thanks";

/** What the user attaches: an uploaded image or document, by its signed URL; `text`: a line of a document's, which its reader must be given. */
export type Attachment = { url: string; mimeType: string; kind: "image" | "document"; text: string | null };

/** `word`: in the turn's text, to find its model calls; `factKey`: the memory fact an approved write sets. */
export type Turn = { text: string; word: string; tools: ClientTool[]; attachment: Attachment | null; factKey: string };

export function turnFor(cell: Cell, attachment: Attachment | null): Turn {
  const word = `w${randomUUID().slice(0, 6)}`;
  const key = `k_${word}`;
  const tools = cell.tools === "frontend" ? [WEATHER_TOOL] : [];
  // The built-in agent's answer streams slowly enough for a client to leave and come back mid-run.
  const pace = cell.delivery === "resume" ? "[[delay:40]] " : "";
  const builtin: Record<Cell["tools"], string> = {
    none: `${pace}hello ${word}`,
    "cli-read": `${pace}[[tool:memory.read {}]] what do you remember ${word}`,
    "cli-write-approval": `${pace}[[tool:memory.update {"facts":[{"key":"${key}","value":"yes"}]}]] remember ${key}`,
    frontend: `${pace}[[call:get_weather {"city":"Paris"}]] weather ${word}`,
  };
  const runner: Record<Cell["tools"], string> = {
    none: `hello ${word} from the matrix`,
    "cli-read": "what do you remember",
    "cli-write-approval": `remember ${key} is yes`,
    frontend: 'use get_weather {"city":"Paris"}',
  };
  return { text: (cell.executor === "builtin" ? builtin : runner)[cell.tools], word, tools, attachment, factKey: key };
}
