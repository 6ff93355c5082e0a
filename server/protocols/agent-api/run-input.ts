import type { GenerationParams } from "../../kernel/runs";
import type { InputTurns } from "./input-items";
import type { AgentRequest, InputContent } from "./request";

// How an Agent API request's new tail (input-items.ts) becomes the engine's run input.

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  svg: "image/svg+xml",
  avif: "image/avif",
  heic: "image/heic",
  heif: "image/heif",
  tif: "image/tiff",
  tiff: "image/tiff",
};

/** The image type an image_url names by its extension; image/png when it names none. */
export function guessImageMimeType(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/, 1)[0] ?? "";
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension && IMAGE_TYPES[extension]) || "image/png";
}

type RunInputPart =
  | { type: "text"; text: string }
  | { type: "binary"; mimeType: string; url: string }
  | { type: "document"; source: { type: "url"; value: string; mimeType: string } };

function toRunInputPart(part: InputContent): RunInputPart | null {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text ?? "" };
    case "image":
      return { type: "binary", mimeType: guessImageMimeType(part.image_url), url: part.image_url };
    case "file":
      return { type: "document", source: { type: "url", value: part.file_url, mimeType: part.mime_type } };
    case "data":
      return part.data ? { type: "text", text: JSON.stringify(part.data) } : null;
  }
}

/**
 * The RunAgentInput (as a JSON value, still to be validated by the AG-UI parser) for the request's
 * new tail on thread `threadId` with run id `runId`: the answers to open client tool calls as tool
 * messages, then the user message. `sources[k]` is the `input` index of `messages[k]`, so the
 * parser's findings can name the request's item. The client's system messages reach the model
 * (and external runners) as the run's context.
 */
export function toRunAgentInput(request: AgentRequest, turns: InputTurns, ids: { threadId: string; runId: string; newId: () => string }) {
  const messages: ({ id: string; role: "tool"; toolCallId: string; content: string } | { id: string; role: "user"; content: RunInputPart[] })[] = [];
  const sources: number[] = [];
  for (const output of turns.outputs) {
    messages.push({ id: output.id ?? ids.newId(), role: "tool", toolCallId: output.callId, content: output.output });
    sources.push(output.index);
  }
  if (turns.userIndex !== null) {
    const user = request.input[turns.userIndex]!;
    const content = (user.content ?? []).map(toRunInputPart).filter((part): part is RunInputPart => part !== null);
    messages.push({ id: user.id ?? ids.newId(), role: "user", content });
    sources.push(turns.userIndex);
  }
  const context = turns.instructions.map((m) => ({ description: "Instructions from the client application (system message)", value: m.text }));
  return { input: { threadId: ids.threadId, runId: ids.runId, messages, tools: request.tools ?? [], context }, sources };
}

/** Sampling parameters in the engine's names; runners apply what their model supports. */
export function generationParams(request: AgentRequest): GenerationParams {
  const params: GenerationParams = {
    model: request.model,
    temperature: request.temperature,
    topP: request.top_p,
    maxTokens: request.max_tokens,
    frequencyPenalty: request.frequency_penalty,
    presencePenalty: request.presence_penalty,
    stop: request.stop === undefined ? undefined : typeof request.stop === "string" ? [request.stop] : request.stop,
    seed: request.seed,
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as GenerationParams;
}
