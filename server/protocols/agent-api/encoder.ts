import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "../ag-ui/events";
import { approvalRequests } from "./approvals";
import { classifyMcpCall, mcpCallData, type McpCall } from "./mcp";
import type { AgentResponse, Content, DataContent, ErrorMessage, Heartbeat, Message, RunStatus, StreamObject, TextContent, Usage } from "./response";

// Encodes a run's AG-UI events as the Agent API's object stream: a pure state machine,
// fed the run's events in order (live or replayed from the log), so every client of a
// run sees the same objects. The engine's guard has already made the sequence well formed
// (START/CONTENT/END pairs, END events before the run closes, nothing after the end).
//
//   RUN_STARTED                 response created, response in_progress
//   TEXT_MESSAGE_START          message created, message in_progress (type message)
//   TEXT_MESSAGE_CONTENT        content delta (type text, delta true, index 0)
//   TEXT_MESSAGE_END            content completed (full text), message completed
//   TOOL_CALL_START             message created, in_progress (type function_call)
//   TOOL_CALL_END               content completed {call_id, name, arguments}, message completed
//   TOOL_CALL_RESULT            function_call_output message: created, in_progress,
//                               content completed {call_id, name, output}, completed
//   project_cli call of one of the run's MCP servers (option `mcpServers`; mcp.ts): opened at
//   TOOL_CALL_END, once its arguments say so, as an mcp_call message (a read of the server's
//   skill document: mcp_list_tools), completed at its TOOL_CALL_RESULT with the output in it
//   RUN_FINISHED                response completed | canceled; an interrupt outcome: an
//                               mcp_approval_request message per request, then response
//                               incomplete (approvals.ts)
//   RUN_ERROR                   an error message {code, message}, then response failed, or
//                               rejected for a refusal (isRefusal), with error
//
//   REASONING_MESSAGE_START     message created, in_progress (type reasoning, role assistant);
//   _CONTENT, _END              then text content as for TEXT_MESSAGE_*: the spec's reasoning type
//
// Reasoning spans (REASONING_START/END, encrypted values), steps, state and activity events have
// no Agent API form and are skipped.

export type TokenCounts = { inputTokens: number; outputTokens: number; totalTokens: number };

export type AgentApiEncoderOptions = {
  responseId: string;
  sessionId: string;
  /** When the run was accepted, in Unix seconds. */
  createdAt: number;
  /** Milliseconds since the epoch; completed_at is taken from it. */
  now?: () => number;
  newId?: () => string;
  /** The MCP servers the run may use (each a project_cli module of its name): their calls are the spec's mcp_* messages. */
  mcpServers?: ReadonlySet<string>;
};

export interface AgentApiEncoder {
  /** The objects one run event becomes; terminal events take the run's token usage. */
  encode(event: AgUiEvent, final?: { usage?: TokenCounts | null }): StreamObject[];
  /** A keep-alive object in the same sequence. */
  heartbeat(): Heartbeat;
  /** True once the response reached a terminal status; nothing is encoded after it. */
  readonly done: boolean;
  /** The response as it stands, without a sequence number. */
  response(): AgentResponse;
}

const PROJECT_CLI = "project_cli";

type OpenText = { id: string; type: "message" | "reasoning"; role: Message["role"]; text: string; hasContent: boolean };
// A project_cli call of a run with MCP servers is opened only once its arguments say what it is.
type OpenCall = { id: string; name: string; args: string; deferred: boolean };

function toUsage(usage: TokenCounts | null | undefined): Usage | null {
  if (!usage) return null;
  return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.totalTokens };
}

function textRole(role: string | undefined): Message["role"] {
  return role === "user" || role === "system" ? role : "assistant";
}

/**
 * Codes of a run that ended because something refused it after its stream began (a limit, a
 * permission, a policy, the input), not because something broke: the spec's `rejected`. The
 * engine's own codes, and a runner's that say so by name (`policy.refused`, `tool.permission_denied`).
 */
const REFUSAL_CODES: ReadonlySet<string> = new Set(["BAD_REQUEST", "FORBIDDEN", "UNPROCESSABLE", "RATE_LIMITED", "QUOTA_EXCEEDED", "PERMISSION_DENIED"]);
const REFUSAL_SUFFIX = /(^|[._])(refused|rejected|forbidden|permission_denied|rate_limited|quota_exceeded|policy_violation)$/i;

export function isRefusal(code: string | undefined): boolean {
  return code !== undefined && (REFUSAL_CODES.has(code) || REFUSAL_SUFFIX.test(code));
}

function terminalStatus(event: AgUiEvent): RunStatus {
  if (event.type === EventType.RUN_ERROR) return isRefusal(event.code) ? "rejected" : "failed";
  if (event.type !== EventType.RUN_FINISHED) return "unknown";
  const outcome = event.outcome?.type;
  if (outcome === "cancelled") return "canceled";
  // An interrupted run waits for the client's mcp_approval_response.
  if (outcome === "interrupt") return "incomplete";
  return "completed";
}

const data = (msgId: string, value: DataContent["data"]): DataContent => ({
  object: "content",
  type: "data",
  index: 0,
  delta: false,
  msg_id: msgId,
  status: "completed",
  data: value,
});

const message = (id: string, type: Message["type"], role: Message["role"], status: Message["status"], content: Content[] = []): Message => ({
  object: "message",
  id,
  type,
  role,
  status,
  content,
});

/** One response's stream of objects: their sequence, the messages still open, and the response they build. */
class AgentApiStream implements AgentApiEncoder {
  private sequence = 0;
  private started = false;
  private ended = false;
  private readonly response_: AgentResponse;
  private readonly texts = new Map<string, OpenText>();
  private readonly calls = new Map<string, OpenCall>();
  private readonly callNames = new Map<string, string>();
  private readonly callArguments = new Map<string, string>();
  private readonly mcpCalls = new Map<string, McpCall>();
  private readonly mcpServers: ReadonlySet<string>;
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(options: AgentApiEncoderOptions) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? (() => crypto.randomUUID());
    this.mcpServers = options.mcpServers ?? new Set();
    this.response_ = {
      object: "response",
      id: options.responseId,
      status: "created",
      session_id: options.sessionId,
      created_at: options.createdAt,
      completed_at: null,
      output: [],
      usage: null,
      error: null,
    };
  }

  get done(): boolean {
    return this.ended;
  }

  response(): AgentResponse {
    return { ...this.response_, output: this.response_.output.map((m) => ({ ...m, content: [...m.content] })) };
  }

  heartbeat(): Heartbeat {
    return this.stamp<Heartbeat>({ object: "message", id: `msg_${this.newId()}`, type: "heartbeat", status: "completed" });
  }

  encode(event: AgUiEvent, final?: { usage?: TokenCounts | null }): StreamObject[] {
    if (this.ended) return [];
    switch (event.type) {
      case EventType.RUN_STARTED:
        return this.start();
      case EventType.RUN_FINISHED:
      case EventType.RUN_ERROR:
        return this.finish(event, final?.usage);
      case EventType.TEXT_MESSAGE_START:
      case EventType.REASONING_MESSAGE_START:
      case EventType.TEXT_MESSAGE_CONTENT:
      case EventType.REASONING_MESSAGE_CONTENT:
      case EventType.TEXT_MESSAGE_END:
      case EventType.REASONING_MESSAGE_END:
        return this.text(event);
      case EventType.TOOL_CALL_START:
      case EventType.TOOL_CALL_ARGS:
      case EventType.TOOL_CALL_END:
      case EventType.TOOL_CALL_RESULT:
        return this.toolCall(event);
      default:
        return [];
    }
  }

  private stamp<T extends StreamObject>(object: T): T {
    return { ...object, sequence_number: this.sequence++ };
  }

  private responseObject(): AgentResponse {
    return this.stamp(this.response());
  }

  private opened(id: string, type: Message["type"], role: Message["role"]): StreamObject[] {
    return [this.stamp(message(id, type, role, "created")), this.stamp(message(id, type, role, "in_progress"))];
  }

  // The completed content, then the completed message holding it, which joins the output.
  private completed(id: string, type: Message["type"], role: Message["role"], content: Content | null): StreamObject[] {
    const whole = message(id, type, role, "completed", content ? [content] : []);
    this.response_.output.push(whole);
    return content ? [this.stamp(content), this.stamp(whole)] : [this.stamp(whole)];
  }

  private start(): StreamObject[] {
    if (this.started) return [];
    this.started = true;
    this.response_.status = "created";
    const created = this.responseObject();
    this.response_.status = "in_progress";
    return [created, this.responseObject()];
  }

  private finish(event: AgUiEvent, usage: TokenCounts | null | undefined): StreamObject[] {
    const out = this.start();
    if (event.type === EventType.RUN_FINISHED && event.outcome?.type === "interrupt") {
      for (const request of approvalRequests(event.outcome.interrupts, this.callArguments)) {
        out.push(...this.opened(request.id, "mcp_approval_request", "assistant"), ...this.completed(request.id, "mcp_approval_request", "assistant", data(request.id, request)));
      }
    }
    this.ended = true;
    const response = this.response_;
    response.status = terminalStatus(event);
    response.completed_at = Math.floor(this.now() / 1000);
    response.usage = toUsage(usage);
    if (event.type === EventType.RUN_ERROR) {
      response.error = { code: event.code ?? "RUNNER_ERROR", message: event.message };
      // The spec's error message, so a client reading messages sees why the response ended.
      out.push(this.stamp<ErrorMessage>({ object: "message", id: `msg_${this.newId()}`, type: "error", status: "completed", code: response.error.code, message: response.error.message }));
    }
    out.push(this.responseObject());
    return out;
  }

  /** An answer's or a thought's text: opened, streamed as deltas, completed whole. */
  private text(event: AgUiEvent): StreamObject[] {
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START: {
        const role = textRole(event.role);
        this.texts.set(event.messageId, { id: event.messageId, type: "message", role, text: "", hasContent: false });
        return [...this.start(), ...this.opened(event.messageId, "message", role)];
      }
      case EventType.REASONING_MESSAGE_START:
        this.texts.set(event.messageId, { id: event.messageId, type: "reasoning", role: "assistant", text: "", hasContent: false });
        return [...this.start(), ...this.opened(event.messageId, "reasoning", "assistant")];
      case EventType.TEXT_MESSAGE_CONTENT:
      case EventType.REASONING_MESSAGE_CONTENT: {
        const open = this.texts.get(event.messageId);
        if (!open) return [];
        open.text += event.delta;
        open.hasContent = true;
        const delta: TextContent = { object: "content", type: "text", index: 0, delta: true, msg_id: open.id, status: "in_progress", text: event.delta };
        return [this.stamp(delta)];
      }
      case EventType.TEXT_MESSAGE_END:
      case EventType.REASONING_MESSAGE_END: {
        const open = this.texts.get(event.messageId);
        if (!open) return [];
        this.texts.delete(event.messageId);
        const full: TextContent = { object: "content", type: "text", index: 0, delta: false, msg_id: open.id, status: "completed", text: open.text };
        return this.completed(open.id, open.type, open.role, open.hasContent ? full : null);
      }
      default:
        return [];
    }
  }

  /** A tool call (completed with its arguments once they are whole) and its output. */
  private toolCall(event: AgUiEvent): StreamObject[] {
    switch (event.type) {
      case EventType.TOOL_CALL_START: {
        const deferred = event.toolCallName === PROJECT_CLI && this.mcpServers.size > 0;
        this.calls.set(event.toolCallId, { id: event.toolCallId, name: event.toolCallName, args: "", deferred });
        this.callNames.set(event.toolCallId, event.toolCallName);
        return [...this.start(), ...(deferred ? [] : this.opened(event.toolCallId, "function_call", "assistant"))];
      }
      case EventType.TOOL_CALL_ARGS: {
        const open = this.calls.get(event.toolCallId);
        if (open) open.args += event.delta;
        return [];
      }
      case EventType.TOOL_CALL_END: {
        const open = this.calls.get(event.toolCallId);
        if (!open) return [];
        this.calls.delete(event.toolCallId);
        this.callArguments.set(open.id, open.args);
        const mcp = open.deferred ? classifyMcpCall(open.args, this.mcpServers) : null;
        if (mcp) {
          this.mcpCalls.set(open.id, mcp);
          return this.opened(open.id, mcp.type, "assistant");
        }
        const opened = open.deferred ? this.opened(open.id, "function_call", "assistant") : [];
        return [...opened, ...this.completed(open.id, "function_call", "assistant", data(open.id, { call_id: open.id, name: open.name, arguments: open.args }))];
      }
      case EventType.TOOL_CALL_RESULT: {
        const output = typeof event.content === "string" ? event.content : JSON.stringify(event.content);
        const mcp = this.mcpCalls.get(event.toolCallId);
        if (mcp) {
          this.mcpCalls.delete(event.toolCallId);
          return this.completed(event.toolCallId, mcp.type, "assistant", data(event.toolCallId, mcpCallData(event.toolCallId, mcp, output)));
        }
        const name = this.callNames.get(event.toolCallId);
        const value = { call_id: event.toolCallId, ...(name === undefined ? {} : { name }), output };
        return [
          ...this.start(),
          ...this.opened(event.messageId, "function_call_output", "tool"),
          ...this.completed(event.messageId, "function_call_output", "tool", data(event.messageId, value)),
        ];
      }
      default:
        return [];
    }
  }
}

export function createAgentApiEncoder(options: AgentApiEncoderOptions): AgentApiEncoder {
  return new AgentApiStream(options);
}
