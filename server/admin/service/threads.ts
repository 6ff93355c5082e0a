import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { findAdminThread, listAdminThreadsPage, listThreadMessagesPage, listThreadRuns } from "../repository/threads";
import { compileToolUiSchema } from "../../tools/project-cli/tool";
import { decodeCursor, toPage } from "./cursor";

export const listThreadsInput = z.object({
  userEmail: z.string().trim().min(1).max(254).optional().describe("Part of the owner's email, any case"),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(25),
});

export const threadIdInput = z.object({ id: z.uuid() });

export const listThreadMessagesInput = z.object({
  id: z.uuid(),
  cursor: z.number().int().min(0).default(0).describe("Message seq the page starts after"),
  limit: z.number().int().min(1).max(200).default(100),
});

const THREAD_RUNS_SHOWN = 20;

export async function listThreads(raw: z.input<typeof listThreadsInput>) {
  const { cursor, limit, userEmail } = listThreadsInput.parse(raw);
  const rows = await listAdminThreadsPage({ userEmail, after: decodeCursor(cursor), limit });
  return toPage(rows, limit, (t) => ({ at: t.updatedAt, id: t.id }));
}

export async function getThreadDetail(raw: z.input<typeof threadIdInput>) {
  const { id } = threadIdInput.parse(raw);
  const thread = await findAdminThread({ id });
  if (!thread) throw new AppError("NOT_FOUND", `Thread ${id} not found`);
  const runs = await listThreadRuns({ threadId: id, limit: THREAD_RUNS_SHOWN });
  return { thread, runs };
}

export async function listThreadMessages(raw: z.input<typeof listThreadMessagesInput>) {
  const { id, cursor, limit } = listThreadMessagesInput.parse(raw);
  const rows = await listThreadMessagesPage({ threadId: id, afterSeq: cursor, limit: limit + 1 });
  const items = rows.slice(0, limit).map((m) => ({ ...m, uiSchema: m.role === "tool" ? compileToolUiSchema(m.metadata.tool_agent_output) : null }));
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.seq ?? null) : null };
}
