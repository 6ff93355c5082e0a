import { MAX_USER_TEXT_CHARS, countCodePoints } from "../ag-ui/run-input-rules";
import type { InputMessage } from "./request";
import { inputText } from "./request";

// Which items of an Agent API request's `input` a run takes (docs/agent-api.md, "Sessions").
// The session's history lives on the server, so a request on an existing session brings only its
// new tail: answers to the session's open client tool calls (function_call_output), answers to its
// pending approval requests (mcp_approval_response), then at most one user message. A new session
// may bring the conversation a client held elsewhere: every item before its last user message
// seeds the session's history. System messages are the client's instructions for this run, on
// either kind of session.

export type FunctionOutputItem = { index: number; id: string | undefined; callId: string; output: string };
export type ApprovalResponseItem = { index: number; message: InputMessage };

/** A seeded earlier turn, as the thread keeps it. */
export type SeedTurn = { index: number; role: "user" | "assistant" | "tool"; id: string | undefined; content: string; call?: { callId: string; name: string; arguments: unknown } };

export type InputTurns = {
  instructions: { index: number; text: string }[];
  seed: SeedTurn[];
  outputs: FunctionOutputItem[];
  approvals: ApprovalResponseItem[];
  /** The new user message's index in `input`; null when the request only answers. */
  userIndex: number | null;
};

export type InputTurnsFailure = { ok: false; message: string; field: string };

export const INPUT_ERRORS = {
  noTail: "the input must end with the new turn: a user message, or function_call_output / mcp_approval_response items",
  notInTail:
    "an existing session takes only its new tail (function_call_output, mcp_approval_response, then one user message); its earlier turns are already on the server: drop this item",
  newSessionEnd: "a new session's input must end with a user message: earlier items seed its history, and it has no open call to answer",
  seedImage: "earlier turns seeding a session carry text only: send images and files in the new user message",
  seedType: "cannot seed a session's history: only user, assistant and system messages and function_call / function_call_output pairs can",
  unpairedCall: "has no function_call_output with its call_id among the earlier turns",
  unpairedOutput: "answers no function_call among the earlier turns",
  callData: "must hold one data content {call_id, name, arguments}",
  outputData: "must hold one data content {call_id, output}",
} as const;

const typeOf = (message: InputMessage) => message.type ?? "message";
const isSystem = (message: InputMessage) => typeOf(message) === "message" && message.role === "system";
const isUser = (message: InputMessage) => typeOf(message) === "message" && message.role === "user";
const answers = (message: InputMessage) => typeOf(message) === "function_call_output" || typeOf(message) === "mcp_approval_response";

function dataOf(message: InputMessage): Record<string, unknown> | null {
  const part = message.content?.find((p) => p.type === "data");
  return part?.type === "data" && part.data ? part.data : null;
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

function functionOutput(message: InputMessage, index: number): FunctionOutputItem | InputTurnsFailure {
  const data = dataOf(message);
  const callId = data?.call_id;
  if (!data || typeof callId !== "string" || !callId || !("output" in data)) return { ok: false, message: INPUT_ERRORS.outputData, field: `input[${index}].content` };
  return { index, id: message.id, callId, output: asText(data.output) };
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function seedTurns(items: { message: InputMessage; index: number }[]): SeedTurn[] | InputTurnsFailure {
  const seed: SeedTurn[] = [];
  const calls = new Map<string, { name: string; arguments: unknown; index: number }>();
  for (const { message, index } of items) {
    const type = typeOf(message);
    if (type === "message" && (message.role === "user" || message.role === "assistant")) {
      const image = (message.content ?? []).findIndex((part) => part.type === "image" || part.type === "file");
      if (image >= 0) return { ok: false, message: INPUT_ERRORS.seedImage, field: `input[${index}].content[${image}]` };
      seed.push({ index, role: message.role, id: message.id, content: inputText(message.content) });
    } else if (type === "function_call") {
      const data = dataOf(message);
      if (!data || typeof data.call_id !== "string" || !data.call_id || typeof data.name !== "string" || !data.name) {
        return { ok: false, message: INPUT_ERRORS.callData, field: `input[${index}].content` };
      }
      calls.set(data.call_id, { name: data.name, arguments: parseArguments(data.arguments), index });
    } else if (type === "function_call_output") {
      const output = functionOutput(message, index);
      if ("ok" in output) return output;
      const call = calls.get(output.callId);
      if (!call) return { ok: false, message: `call_id ${JSON.stringify(output.callId)} ${INPUT_ERRORS.unpairedOutput}`, field: `input[${index}]` };
      calls.delete(output.callId);
      seed.push({ index, role: "tool", id: output.id, content: output.output, call: { callId: output.callId, name: call.name, arguments: call.arguments } });
    } else {
      return { ok: false, message: `${type} ${INPUT_ERRORS.seedType}`, field: `input[${index}]` };
    }
  }
  const [open] = calls;
  if (open) return { ok: false, message: `function_call ${JSON.stringify(open[0])} ${INPUT_ERRORS.unpairedCall}`, field: `input[${open[1].index}]` };
  return seed;
}

/**
 * Splits a request's input for a new session (`fresh`) or an existing one, or names the first
 * item that does not fit. The user message's text is held to the run input's limit.
 */
export function splitInput(input: readonly InputMessage[], fresh: boolean): { ok: true; turns: InputTurns } | InputTurnsFailure {
  const instructions: InputTurns["instructions"] = [];
  const items: { message: InputMessage; index: number }[] = [];
  input.forEach((message, index) => {
    if (isSystem(message)) instructions.push({ index, text: inputText(message.content) });
    else items.push({ message, index });
  });
  const last = items.at(-1);
  if (!last || !(isUser(last.message) || answers(last.message))) {
    return { ok: false, message: INPUT_ERRORS.noTail, field: last ? `input[${last.index}]` : "input" };
  }
  let start = items.length;
  if (isUser(last.message)) start--;
  if (fresh) {
    if (start === items.length) return { ok: false, message: INPUT_ERRORS.newSessionEnd, field: `input[${last.index}]` };
  } else {
    while (start > 0 && answers(items[start - 1]!.message)) start--;
    if (start > 0) return { ok: false, message: INPUT_ERRORS.notInTail, field: `input[${items[start - 1]!.index}]` };
  }
  const seed = seedTurns(items.slice(0, start));
  if ("ok" in seed) return seed;

  const turns: InputTurns = { instructions, seed, outputs: [], approvals: [], userIndex: null };
  for (const { message, index } of items.slice(start)) {
    if (isUser(message)) {
      if (countCodePoints(inputText(message.content)) > MAX_USER_TEXT_CHARS) {
        return { ok: false, message: `user message text exceeds limit (${MAX_USER_TEXT_CHARS} characters)`, field: `input[${index}].content` };
      }
      turns.userIndex = index;
    } else if (typeOf(message) === "function_call_output") {
      const output = functionOutput(message, index);
      if ("ok" in output) return output;
      turns.outputs.push(output);
    } else {
      turns.approvals.push({ index, message });
    }
  }
  return { ok: true, turns };
}
