import "server-only";
import type { ModelMessage } from "ai";
import { z } from "zod";
import { runFileParts } from "../files/model-parts";
import type { RunFile } from "../files/run-files";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import type { ThreadMessage, ToolEventRow } from "./repository";

// The conversation the model sees is rebuilt from what the server persisted, never from
// history a client sends. The one thing only a client can supply is the answer to a
// frontend tool call, and that is accepted only for calls the previous run really left open.

export type ToolExchange = { toolCallId: string; toolName: string; args: unknown; content: string };

const toolRowSchema = z
  .object({
    tool_call_id: z.string().min(1).optional(),
    tool_name: z.string().min(1).optional(),
    tool_call_args: z.unknown().optional(),
    tool_agent_output: z
      .object({ tool_call_id: z.string().min(1).optional(), tool_name: z.string().min(1).optional(), tool_call_args: z.unknown().optional() })
      .loose()
      .optional(),
  })
  .loose();

/** A persisted tool message as the call and result that produced it; null for rows too old to tell. */
export function toolExchangeOf(row: ThreadMessage): ToolExchange | null {
  // A call waiting for approval has no answer yet: the run that resolves it supplies one.
  if (row.metadata.stage === "approval") return null;
  const meta = toolRowSchema.safeParse(row.metadata);
  if (!meta.success) return null;
  const output = meta.data.tool_agent_output;
  const toolCallId = output?.tool_call_id ?? meta.data.tool_call_id;
  const toolName = meta.data.tool_name ?? output?.tool_name;
  if (!toolCallId || !toolName) return null;
  return { toolCallId, toolName, args: output?.tool_call_args ?? meta.data.tool_call_args ?? {}, content: row.content };
}

/** A call's streamed arguments as JSON, or {} when they do not parse. */
export function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** Frontend tool calls the previous run started and never answered, with their streamed arguments. */
export function openClientToolCalls(events: readonly ToolEventRow[], serverToolNames: ReadonlySet<string>): Omit<ToolExchange, "content">[] {
  const calls = new Map<string, { toolName: string; args: string }>();
  for (const { type, payload } of events) {
    const id = typeof payload.toolCallId === "string" ? payload.toolCallId : null;
    if (!id) continue;
    if (type === "TOOL_CALL_START" && typeof payload.toolCallName === "string" && !serverToolNames.has(payload.toolCallName)) {
      calls.set(id, { toolName: payload.toolCallName, args: "" });
    } else if (type === "TOOL_CALL_ARGS" && typeof payload.delta === "string") {
      const call = calls.get(id);
      if (call) call.args += payload.delta;
    } else if (type === "TOOL_CALL_RESULT") {
      calls.delete(id);
    }
  }
  return [...calls].map(([toolCallId, call]) => ({ toolCallId, toolName: call.toolName, args: parseArgs(call.args) }));
}

function toolMessageText(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text ?? "" : `[${part.type}]`)).join("");
}

/** The client's answers (tool messages in the input) to the calls that are really open. */
export function clientToolResults(input: RunAgentInput, open: readonly Omit<ToolExchange, "content">[]): ToolExchange[] {
  const answers = new Map<string, string>();
  for (const message of input.messages) {
    if (message.role === "tool") answers.set(message.toolCallId, message.error ? `Error: ${message.error}` : toolMessageText(message.content));
  }
  return open.flatMap((call) => {
    const content = answers.get(call.toolCallId);
    return content === undefined ? [] : [{ ...call, content }];
  });
}

function pushExchange(messages: ModelMessage[], exchange: ToolExchange): void {
  const call = { type: "tool-call" as const, toolCallId: exchange.toolCallId, toolName: exchange.toolName, input: exchange.args };
  const last = messages.at(-1);
  if (last?.role === "assistant" && Array.isArray(last.content)) last.content.push(call);
  else messages.push({ role: "assistant", content: [call] });
  messages.push({
    role: "tool",
    content: [{ type: "tool-result", toolCallId: exchange.toolCallId, toolName: exchange.toolName, output: { type: "text", value: exchange.content } }],
  });
}

/**
 * The model's messages for this run: the recent thread (user and assistant text, each tool
 * message as its call and result), the answered frontend calls, then the new user message
 * (none, `userText` null, when the run only brings the answers and the model goes on from them).
 */
export function buildConversation(opts: {
  history: readonly ThreadMessage[];
  clientResults: readonly ToolExchange[];
  userText: string | null;
  userFiles?: readonly RunFile[];
  /** The document types the model takes as file parts; other documents go as their text. */
  fileTypes?: readonly string[];
  /** What this run completed before its execution was taken over, then the calls repeated since. */
  progress?: readonly ThreadMessage[];
  repeated?: readonly ToolExchange[];
}): ModelMessage[] {
  const messages: ModelMessage[] = [];
  appendRows(messages, opts.history);
  for (const exchange of opts.clientResults) pushExchange(messages, exchange);
  if (opts.userText !== null) pushUser(messages, opts.userText, runFileParts(opts.userFiles ?? [], { fileTypes: opts.fileTypes ?? [] }));
  appendRows(messages, opts.progress ?? []);
  for (const exchange of opts.repeated ?? []) pushExchange(messages, exchange);
  return messages;
}

function appendRows(messages: ModelMessage[], rows: readonly ThreadMessage[]): void {
  for (const row of rows) {
    if (row.role === "user") {
      messages.push({ role: "user", content: row.content });
    } else if (row.role === "assistant") {
      const last = messages.at(-1);
      if (last?.role === "assistant" && Array.isArray(last.content)) last.content.push({ type: "text", text: row.content });
      else messages.push({ role: "assistant", content: [{ type: "text", text: row.content }] });
    } else if (row.role === "tool") {
      const exchange = toolExchangeOf(row);
      if (exchange) pushExchange(messages, exchange);
    }
  }
}

function pushUser(messages: ModelMessage[], userText: string, attached: ReturnType<typeof runFileParts>): void {
  const text = userText || "(no text)";
  if (attached.length) {
    messages.push({ role: "user", content: [{ type: "text", text }, ...attached] });
  } else {
    messages.push({ role: "user", content: text });
  }
}
