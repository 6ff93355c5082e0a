import { notFound, redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { AppError } from "@/server/errors";
import { UUID_PATTERN } from "@/server/protocols/ag-ui/run-input-rules";
import { getThreadView } from "@/server/services/threads";
import { ChatView } from "@/components/chat/chat-view";
import { HistoryDay } from "@/components/chat/history-day";

export const dynamic = "force-dynamic";

export default async function ThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  if (!UUID_PATTERN.test(threadId)) notFound();
  const principal = await getSessionPrincipal();
  if (!principal) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/chat/${threadId}`)}`);
  const view = await getThreadView({ userId: principal.userId, threadId }).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "NOT_FOUND") notFound();
    throw err;
  });
  return (
    <ChatView
      key={threadId}
      threadId={threadId}
      title={view.thread?.title ?? null}
      day={view.history.day}
      hasMore={view.history.hasMore}
      hasHistory={view.history.messages.length > 0}
      activeRunId={view.activeRun?.runId ?? null}
    >
      <HistoryDay snapshot={view.history} />
    </ChatView>
  );
}
