import "server-only";
import type { HistorySnapshot } from "../../protocols/ag-ui/history";
import { findStoppedAnswerIds } from "../repository/stopped-answers";

/** The messages of a history page that end an answer the user stopped (by protocol message id). */
export async function stoppedAnswersIn(opts: { userId: string; snapshot: HistorySnapshot }): Promise<string[]> {
  const { snapshot } = opts;
  if (!snapshot.threadId) return [];
  const ids = snapshot.messages.filter((m) => m.role !== "user").map((m) => m.id);
  return findStoppedAnswerIds({ userId: opts.userId, threadId: snapshot.threadId, messageIds: ids });
}
