import { notFound, redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { AppError } from "@/server/kernel/errors";
import { UUID_PATTERN } from "@/server/protocols/ag-ui/run-input-rules";
import { getThreadView } from "@/server/threads/service/threads";
import { ChatView } from "@/components/chat/chat-view";
import { HistoryDay } from "@/components/chat/history-day";
import { stoppedAnswersIn } from "@/server/runs/service/stopped-answers";
import { requestLocale } from "@/components/i18n/request-locale";
import { keptState } from "@/server/thread-state/service";

export const dynamic = "force-dynamic";

export default async function ThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  if (!UUID_PATTERN.test(threadId)) notFound();
  const principal = await getSessionPrincipal();
  if (!principal) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/chat/${threadId}`)}`);
  const view = await getThreadView({ userId: principal.userId, threadId, locale: await requestLocale() }).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "NOT_FOUND") notFound();
    throw err;
  });
  const [stopped, state] = await Promise.all([
    stoppedAnswersIn({ userId: principal.userId, snapshot: view.history }),
    // A thread whose id is not taken yet keeps nothing.
    view.thread ? keptState({ userId: principal.userId, threadId }) : null,
  ]);
  const messages = view.history.messages;
  const lastUser = messages.findLast((m) => m.role === "user");
  const lastQuestion = lastUser ? { id: lastUser.id, text: lastUser.content, images: lastUser.attachments.map((a) => ({ url: a.url, mimeType: a.mime_type, name: a.path.split("/").at(-1) ?? "" })) } : null;
  return (
    <ChatView
      // A switched branch or a branching run re-renders the page (router.refresh): a new current
      // branch ends with another message, and the view starts again from the history alone.
      key={`${threadId}:${messages.at(-1)?.id ?? ""}`}
      threadId={threadId}
      title={view.thread?.title ?? null}
      day={view.history.day}
      hasMore={view.history.hasMore}
      hasHistory={messages.length > 0}
      lastMessageAt={messages.at(-1)?.timestamp ?? null}
      lastQuestion={lastQuestion}
      activeRunId={view.activeRun?.runId ?? null}
      initialState={state}
    >
      <HistoryDay snapshot={view.history} stopped={stopped} />
    </ChatView>
  );
}
