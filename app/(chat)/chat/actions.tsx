"use server";

import { z } from "zod";
import { getSessionPrincipal } from "@/server/auth/session";
import { AppError } from "@/server/kernel/errors";
import { getHistoryDay, parseHistoryDate } from "@/server/threads/service/history";
import { HistoryDay } from "@/components/chat/history-day";
import { stoppedAnswersIn } from "@/server/runs/service/stopped-answers";
import { dictionaries } from "@/components/i18n/dictionaries";
import { requestLocale } from "@/components/i18n/request-locale";

const inputSchema = z.object({ threadId: z.string().uuid(), before: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });

export type OlderHistory =
  | { ok: true; day: string | null; hasMore: boolean; node: React.ReactNode }
  | { ok: false; message: string };

/** The day of a thread before `before`, rendered on the server like the rest of the history. */
export async function loadOlderHistory(input: z.input<typeof inputSchema>): Promise<OlderHistory> {
  const t = dictionaries[await requestLocale()];
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, message: t.chat.olderFailed };
  const principal = await getSessionPrincipal();
  if (!principal) return { ok: false, message: t.errors.signedOut };
  try {
    const snapshot = await getHistoryDay({ userId: principal.userId, threadId: parsed.data.threadId, before: parseHistoryDate(parsed.data.before), reasoning: true });
    const stopped = await stoppedAnswersIn({ userId: principal.userId, snapshot });
    return { ok: true, day: snapshot.day, hasMore: snapshot.hasMore, node: <HistoryDay snapshot={snapshot} stopped={stopped} /> };
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") return { ok: false, message: t.errors.notFound };
    if (err instanceof AppError && err.status < 500) return { ok: false, message: t.chat.olderFailed };
    throw err;
  }
}
