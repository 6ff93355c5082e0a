import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import {
  findAdminRun,
  findRunEventTimings,
  listAdminRunsPage,
  listRunEventsPage,
  listRunMessages,
  listRunToolCallEvents,
  type ArchivedEvents,
  type RunMessageRow,
  type ToolCallEventsRow,
} from "../repository/runs";
import { listRunAttempts } from "../../runs/repository/run-attempts";
import { toolAgentOutputSchema } from "../../protocols/runner/host-api";
import { compileToolUiSchema } from "../../tools/project-cli/tool";
import { decodeCursor, toPage } from "./cursor";
import { queuePositions } from "../../runs/repository/run-queue";
import { readArchivedLog } from "../../run-archive/archived-log";

export const runStatusSchema = z.enum(["queued", "running", "completed", "failed", "cancelled"]);

export const runFiltersSchema = z.object({
  statuses: z.array(runStatusSchema).max(5).optional().describe("Only runs in one of these states"),
  userEmail: z.string().trim().min(1).max(254).optional().describe("Part of the owner's email, any case"),
  threadId: z.uuid().optional().describe("Only runs on this thread"),
  protocol: z.string().trim().min(1).max(64).optional().describe("Protocol the run came in by, e.g. ag-ui"),
  createdFrom: z.date().optional().describe("Created at or after this instant"),
  createdTo: z.date().optional().describe("Created before this instant"),
  minDurationMs: z.number().int().min(0).max(7 * 86_400_000).optional().describe("Ran at least this long (so far, when still running)"),
  hasError: z.boolean().optional().describe("true: only runs with an error; false: only runs without"),
  awaitingApproval: z.boolean().optional().describe("true: only runs waiting for a person's approval"),
  attempts: z
    .enum(["moved", "lease_expired"])
    .optional()
    .describe("moved: only runs executed by more than one instance in turn; lease_expired: only runs whose executor stopped reporting at least once"),
});
export type RunFilters = z.infer<typeof runFiltersSchema>;

export const listRunsInput = runFiltersSchema.extend({
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(25),
});

export const runIdInput = z.object({ id: z.uuid() });

export const MAX_EVENTS_PAGE = 500;
export const listRunEventsInput = z.object({
  id: z.uuid(),
  cursor: z.number().int().min(0).default(0).describe("Sequence number the page starts after"),
  limit: z.number().int().min(1).max(MAX_EVENTS_PAGE).default(MAX_EVENTS_PAGE),
});

const MAX_TOOL_CALLS = 200;
const MAX_RUN_MESSAGES = 500;

// What the post-processor stores in a tool message; read leniently, since rows outlive code.
const storedToolOutputSchema = toolAgentOutputSchema.partial();

const resultEventSchema = z
  .object({ content: z.unknown().optional(), metadata: z.object({ ui_schema: z.unknown().optional() }).loose().optional() })
  .loose();

export async function listRuns(raw: z.input<typeof listRunsInput>) {
  const { cursor, limit, ...filters } = listRunsInput.parse(raw);
  if (filters.createdFrom && filters.createdTo && filters.createdFrom >= filters.createdTo) {
    throw new AppError("BAD_REQUEST", "The time range is empty: `from` must be before `to`");
  }
  const rows = await listAdminRunsPage({ ...filters, after: decodeCursor(cursor), limit });
  const page = toPage(rows, limit, (r) => ({ at: r.createdAt, id: r.id }));
  // A run waiting its turn on a busy thread shows its place in line (1: next).
  const positions = await queuePositions({ ids: page.items.filter((r) => r.status === "queued").map((r) => r.id) });
  return { ...page, items: page.items.map((r) => ({ ...r, queuePosition: positions.get(r.id) ?? null })) };
}

export async function listRunEvents(raw: z.input<typeof listRunEventsInput>) {
  const { id, cursor, limit } = listRunEventsInput.parse(raw);
  const { archived } = await eventLogOf(id);
  const rows = await listRunEventsPage({ runId: id, afterSeq: cursor, limit: limit + 1, archived });
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.seq ?? null) : null };
}

/**
 * Where the run's events are: in the event log's hot rows, in their archive (read from storage),
 * or expired under the retention policy (the page shows the run without them).
 */
async function eventLogOf(runId: string): Promise<{ archived: ArchivedEvents; eventLog: "hot" | "archived" | "expired" }> {
  try {
    const archived = await readArchivedLog(runId);
    return { archived, eventLog: archived ? "archived" : "hot" };
  } catch (err) {
    if (err instanceof AppError && err.code === "GONE") return { archived: [], eventLog: "expired" };
    throw err;
  }
}

/** Everything the run page shows above the event timeline. */
export async function getRunDetail(raw: z.input<typeof runIdInput>) {
  const { id } = runIdInput.parse(raw);
  const run = await findAdminRun({ id });
  if (!run) throw new AppError("NOT_FOUND", `Run ${id} not found`);
  const { archived, eventLog } = await eventLogOf(id);
  const [timings, toolEvents, messages, attempts] = await Promise.all([
    findRunEventTimings({ runId: id, archived }),
    listRunToolCallEvents({ runId: id, limit: MAX_TOOL_CALLS, archived }),
    listRunMessages({ threadId: run.threadId, runId: id, limit: MAX_RUN_MESSAGES }),
    listRunAttempts({ runId: id }),
  ]);
  const since = (at: Date | null) => (at ? at.getTime() - run.createdAt.getTime() : null);
  return {
    run,
    eventLog,
    eventCount: timings.eventCount,
    latency: {
      queueMs: since(run.startedAt),
      firstEventMs: since(timings.firstEventAt),
      firstTextMs: since(timings.firstTextAt),
      firstToolCallMs: since(timings.firstToolCallAt),
      lastEventMs: since(timings.lastEventAt),
      totalMs: run.durationMs,
      stages: messages.map((m) => ({
        seq: m.seq,
        role: m.role,
        messageId: m.messageId,
        stage: typeof m.metadata.stage === "string" ? m.metadata.stage : null,
        latencyMs: typeof m.metadata.latency_ms === "number" ? m.metadata.latency_ms : null,
        createdAt: m.createdAt,
      })),
    },
    conversation: conversationOf(messages),
    // Each execution: which instance, when, and why it ended (moved on, or the run's end).
    attempts,
    toolCalls: assembleToolCalls(toolEvents, messages.filter((m) => m.role === "tool")),
  };
}

/**
 * The run as its user saw it, for the top of its console page: the prompt, the answer's texts
 * and the cards, in order. A tool result without a card is left to the tool calls below.
 */
type ConversationEntry = { seq: number; role: "user" | "assistant" | "tool"; text: string | null; uiSchema: ReturnType<typeof compileToolUiSchema> };

function conversationOf(messages: RunMessageRow[]): ConversationEntry[] {
  return messages.flatMap((m): ConversationEntry[] => {
    if (m.role === "user") return [{ seq: m.seq, role: "user", text: m.content, uiSchema: null }];
    if (m.role === "assistant") return m.content ? [{ seq: m.seq, role: "assistant", text: m.content, uiSchema: null }] : [];
    const uiSchema = compileToolUiSchema(m.metadata.tool_agent_output);
    return uiSchema ? [{ seq: m.seq, role: "tool", text: null, uiSchema }] : [];
  });
}

/** Joins each tool call's streamed events with the tool message the engine stored for it. */
function assembleToolCalls(events: ToolCallEventsRow[], toolMessages: RunMessageRow[]) {
  const byId = new Map<string, { events?: ToolCallEventsRow; message?: RunMessageRow }>();
  for (const e of events) byId.set(e.toolCallId, { events: e });
  for (const m of toolMessages) {
    const output = storedToolOutputSchema.safeParse(m.metadata.tool_agent_output);
    const key = stringOr(m.metadata.tool_call_id) ?? (output.success ? output.data.tool_call_id : undefined) ?? `message:${m.messageId}`;
    byId.set(key, { ...byId.get(key), message: m });
  }
  return [...byId.entries()].map(([toolCallId, { events: ev, message }]) => {
    const parsedOutput = storedToolOutputSchema.safeParse(message?.metadata.tool_agent_output);
    const output = parsedOutput.success ? parsedOutput.data : null;
    const resultEvent = ev?.resultEvent ? resultEventSchema.safeParse(parseJson(ev.resultEvent)) : null;
    const streamedArgs = ev?.argsText ? parseJson(ev.argsText) : undefined;
    // The same compiler the chat and /history use, so the console shows the card users saw.
    const compiled = compileToolUiSchema(message?.metadata.tool_agent_output);
    const eventUi = resultEvent?.success ? resultEvent.data.metadata?.ui_schema : undefined;
    const latency = message?.metadata.latency_ms;
    return {
      toolCallId,
      toolName: ev?.toolCallName ?? output?.tool_name ?? stringOr(message?.metadata.tool_name) ?? null,
      args: streamedArgs !== undefined ? streamedArgs : (output?.tool_call_args ?? null),
      argsSource: streamedArgs !== undefined ? ("events" as const) : output?.tool_call_args !== undefined ? ("tool_message" as const) : null,
      status: output?.status ?? null,
      output: message?.metadata.tool_agent_output ?? null,
      content: message?.content ?? (resultEvent?.success ? resultEvent.data.content : null) ?? null,
      uiSchema: compiled ?? eventUi ?? null,
      uiSource: compiled ? ("ui_hints" as const) : eventUi !== undefined ? ("event" as const) : null,
      stage: stringOr(message?.metadata.stage) ?? null,
      latencyMs: typeof latency === "number" ? latency : null,
      firstSeq: ev?.firstSeq ?? null,
      messageSeq: message?.seq ?? null,
      startedAt: ev?.startedAt ?? null,
      resultAt: ev?.resultAt ?? message?.createdAt ?? null,
      durationMs: ev?.startedAt && ev.resultAt ? ev.resultAt.getTime() - ev.startedAt.getTime() : null,
    };
  });
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Arguments stream as JSON text; a fragment that does not parse is shown as the text itself. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
