import type { GenerationParams } from "../../runs/types";
import type { AgentRequest, InputContent } from "./request";

// How an Agent API request becomes the engine's run input. The session's earlier turns
// live in the thread on the server, so only the request's last user message is the new
// turn; the rest of `input` is context the client already sent in earlier requests.

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

type RunInputPart = { type: "text"; text: string } | { type: "binary"; mimeType: string; url: string };

function toRunInputPart(part: InputContent): RunInputPart | null {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text ?? "" };
    case "image":
      return { type: "binary", mimeType: guessImageMimeType(part.image_url), url: part.image_url };
    case "data":
      return part.data ? { type: "text", text: JSON.stringify(part.data) } : null;
  }
}

/**
 * The RunAgentInput (as a JSON value, still to be validated by the AG-UI parser) for the
 * request's user message at `userIndex`, on thread `threadId` with run id `runId`.
 */
export function toRunAgentInput(request: AgentRequest, userIndex: number, ids: { threadId: string; runId: string; messageId: string }) {
  const user = request.input[userIndex]!;
  const content = (user.content ?? []).map(toRunInputPart).filter((part): part is RunInputPart => part !== null);
  return {
    threadId: ids.threadId,
    runId: ids.runId,
    messages: [{ id: user.id ?? ids.messageId, role: "user" as const, content }],
    tools: request.tools ?? [],
    context: [],
  };
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
