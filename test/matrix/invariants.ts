import { verifyEvents, type BaseEvent } from "@ag-ui/client";
import { verifyEvents as verifyLegacyEvents, EventSchemas as LegacyEventSchemas } from "@ag-ui/client-0.0.59";
import { EventSchemas } from "@ag-ui/core/schemas";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import { expect } from "vitest";
import { getPool } from "@/server/db";
import { StreamObjectSchema } from "@/server/protocols/agent-api/response";
import { historySnapshotSchema, type HistoryMessage } from "@/server/protocols/ag-ui/history";
import { getJson } from "@/test/runs";
import type { SseFrame } from "@/test/sse";
import type { Cell } from "./axes";
import type { Door } from "./ag-ui-doors";
import { finalResponse, objectsOf } from "./agent-api-door";
import { eventsOf, follow, type AgUiEvent, type Reader, type RunRecord } from "./delivery";
import type { Participant } from "./participants";
import type { Turn } from "./turns";

// What every cell must hold, whatever its door, executor, input, tool and delivery.

/** AG-UI events: each valid by the schemas of the client's version, the sequence accepted by its verifyEvents. */
async function expectValidAgUi(events: AgUiEvent[], version: Reader["version"]): Promise<void> {
  const schemas = version === "1.0" ? EventSchemas : LegacyEventSchemas;
  for (const e of events) expect(schemas.safeParse(e).error?.issues ?? [], JSON.stringify(e)).toEqual([]);
  const verify = (version === "1.0" ? verifyEvents(false) : verifyLegacyEvents(false)) as unknown as (source: Observable<BaseEvent>) => Observable<BaseEvent>;
  await lastValueFrom(verify(from(events as BaseEvent[])).pipe(toArray()));
  expect(["RUN_FINISHED", "RUN_ERROR"]).toContain(events.at(-1)?.type);
}

/** SSE ids 1, 2, 3, ...: nothing missing, nothing twice, however the client read them. */
function expectContiguousIds(frames: SseFrame[]): void {
  const ids = frames.flatMap((f) => (f.id === null ? [] : [Number(f.id)]));
  expect(ids).toEqual(ids.map((_, i) => i + 1));
}

/** The Agent API's own stream: each object valid, numbered 0, 1, 2, ..., ending with the response. */
function expectValidAgentApi(frames: SseFrame[]): void {
  const objects = objectsOf(frames);
  for (const o of objects) expect(StreamObjectSchema.safeParse(o).error?.issues ?? [], JSON.stringify(o)).toEqual([]);
  expect(objects.map((o) => o.sequence_number)).toEqual(objects.map((_, i) => i));
  expect(objects.at(-1)).toMatchObject({ object: "response", status: expect.stringMatching(/^(completed|incomplete)$/) });
}

/** Streams valid, each event stored once: the log replayed from its start is what the client got. */
export async function expectStreamsValid(cell: Cell, door: Door & { earlierLegs?: Map<string, SseFrame[]> }, runs: RunRecord[]): Promise<AgUiEvent[][]> {
  const logs: AgUiEvent[][] = [];
  for (const run of runs) {
    const replay = await follow(run.runId, door.reader);
    expectContiguousIds(replay);
    await expectValidAgUi(eventsOf(replay), door.reader.version);
    if (cell.door === "agent-api") {
      expectValidAgentApi(run.frames);
      // Rejoining streamed the response again from its first object: what was read before is its start.
      const earlier = door.earlierLegs?.get(run.runId);
      if (earlier) expect(run.frames.slice(0, earlier.length)).toEqual(earlier);
      // The response says what the log says.
      const said = finalResponse(run).output.filter((m) => m.type === "message" && m.role === "assistant").flatMap((m) => m.content.map((c) => c.text ?? ""));
      expect(said.join("")).toBe(eventsOf(replay).filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join(""));
    } else {
      expectContiguousIds(run.frames);
      await expectValidAgUi(eventsOf(run.frames), door.reader.version);
      expect(run.frames.filter((f) => f.id !== null)).toEqual(replay);
    }
    logs.push(eventsOf(replay));
  }
  return logs;
}

type Expected = { role: string; id?: string; content: string; attachments?: number };

/** The thread as the runs' logs tell it: assistant texts and tool results, by message id. */
function toldByLogs(logs: AgUiEvent[][]): Expected[] {
  const told: Expected[] = [];
  for (const events of logs) {
    for (const e of events) {
      if (e.type === "TEXT_MESSAGE_START") told.push({ role: "assistant", id: e.messageId as string, content: "" });
      if (e.type === "TEXT_MESSAGE_CONTENT") told.find((m) => m.id === e.messageId)!.content += e.delta as string;
      if (e.type === "TOOL_CALL_RESULT") told.push({ role: "tool", id: e.messageId as string, content: e.content as string });
    }
  }
  return told;
}

/** GET /history equals what the streams said: the user's text and attachment, the answers, the tool results. */
export async function expectHistoryAsStreamed(p: Participant, door: Door, turn: Turn, logs: AgUiEvent[][], clientAnswer: string | null): Promise<HistoryMessage[]> {
  const res = await getJson(p.apiKey, `/api/v1/agent/history?threadId=${encodeURIComponent(door.threadId)}`);
  const history = historySnapshotSchema.parse(await res.json());
  const users = history.messages.filter((m) => m.role === "user");
  expect(users[0]).toMatchObject({ content: turn.text, attachments: turn.attachment ? [expect.objectContaining({ mime_type: turn.attachment.mimeType })] : [] });
  const told = toldByLogs(logs);
  const kept = history.messages.filter((m) => m.role !== "user" && !(clientAnswer !== null && m.role === "tool" && m.content === clientAnswer));
  // A tool result that replaced an approval card keeps the card's message id: compare by content.
  expect(kept.map((m) => ({ role: m.role, content: m.content }))).toEqual(told.map((m) => ({ role: m.role, content: m.content })));
  if (clientAnswer !== null) expect(history.messages.filter((m) => m.role === "tool" && m.content === clientAnswer)).toHaveLength(1);
  return history.messages;
}

/** Every run ended, and the usage ledger counted each once. */
export async function expectUsageRecorded(p: Participant, cell: Cell, runs: RunRecord[]): Promise<void> {
  for (const run of runs) {
    const status = (await (await getJson(p.apiKey, `/api/v1/agent/runs/${encodeURIComponent(run.runId)}`)).json()) as { status: string; usage: { totalTokens?: number } | null; error: unknown };
    expect({ runId: run.runId, status: status.status, error: status.error }).toEqual({ runId: run.runId, status: "completed", error: null });
    if (cell.executor === "builtin") expect(status.usage?.totalTokens).toBeGreaterThan(0);
  }
  const { rows } = await getPool().query<{ runs: number }>(`select coalesce(sum(runs), 0)::int as runs from usage_daily where user_id = $1`, [p.userId]);
  expect(rows[0]!.runs).toBe(runs.length);
}

/** No credential in anything the client was sent or can read back. */
export function expectNothingLeaked(p: Participant, runs: RunRecord[], history: HistoryMessage[]): void {
  const seen = [...runs.flatMap((r) => r.frames.map((f) => f.data)), JSON.stringify(history)].join("\n");
  for (const secret of p.secrets) expect(seen.includes(secret), `a secret (${secret.slice(0, 6)}…) leaked`).toBe(false);
}
