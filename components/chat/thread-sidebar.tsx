"use client";

import { useState } from "react";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { randomUUID } from "@ag-ui/client";
import { useTRPC } from "@/components/trpc-provider";
import { signOutAction } from "@/app/(auth)/actions";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { ApprovalsInbox } from "./approvals-inbox";
import { PencilIcon, PlusIcon, TrashIcon } from "./icons";
import { ThreadSearchBox, ThreadSearchResults, useThreadSearch } from "./thread-search";

type Thread = { id: string; title: string; running: boolean };

export function ThreadSidebar({ isAdmin, onNavigate }: { isAdmin: boolean; onNavigate: () => void }) {
  const t = useDictionary();
  const trpc = useTRPC();
  const router = useRouter();
  const params = useParams<{ threadId?: string }>();
  const currentId = params.threadId ?? null;
  const threads = useInfiniteQuery(trpc.threads.list.infiniteQueryOptions({ limit: 30 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }));
  const items = threads.data?.pages.flatMap((p) => p.items) ?? [];
  const search = useThreadSearch();

  return (
    <aside className="chat-sidebar" id="chat-sidebar" aria-label={t.chat.chats} data-testid="thread-sidebar">
      <button
        type="button"
        className="btn btn-primary chat-new"
        data-testid="new-chat"
        onClick={() => {
          onNavigate();
          router.push(`/chat/${randomUUID()}`);
        }}
      >
        <PlusIcon /> {t.chat.newChat}
      </button>
      <ApprovalsInbox onNavigate={onNavigate} />
      <ThreadSearchBox query={search.query} onQuery={search.setQuery} onKeyDown={search.onBoxKeyDown} />
      {search.active ? (
        <ThreadSearchResults query={search.query} listRef={search.listRef} onKeyDown={search.onListKeyDown} onNavigate={onNavigate} currentId={currentId} />
      ) : (
        <>
        {threads.error ? (
          <p role="alert" className="error-text">
            {t.chat.chatsFailed}
          </p>
        ) : null}
        {threads.isPending ? <p className="muted chat-sidebar-note">{t.chat.loadingChats}</p> : null}
        {!threads.isPending && items.length === 0 && !threads.error ? <p className="muted chat-sidebar-note">{t.chat.noChats}</p> : null}
        <ul className="chat-thread-list" data-testid="thread-list">
          {items.map((thread) => (
            <ThreadRow key={thread.id} thread={thread} current={thread.id === currentId} onNavigate={onNavigate} />
          ))}
        </ul>
        {threads.hasNextPage ? (
          <button type="button" className="btn chat-more" onClick={() => void threads.fetchNextPage()} disabled={threads.isFetchingNextPage}>
            {threads.isFetchingNextPage ? t.common.loading : t.chat.showOlderChats}
          </button>
        ) : null}
        </>
      )}
      {/* On a phone the header has no room for these: the drawer carries them. */}
      <nav className="chat-drawer-links" aria-label={t.chat.account}>
        <Link href="/chat/settings" onClick={onNavigate} data-testid="drawer-settings">
          {t.chat.settings}
        </Link>
        {isAdmin ? (
          <Link href="/admin" data-testid="drawer-admin">
            {t.chat.admin}
          </Link>
        ) : null}
        <form action={signOutAction}>
          <button className="btn" type="submit" data-testid="drawer-sign-out">
            {t.chat.signOut}
          </button>
        </form>
      </nav>
    </aside>
  );
}

// Long: one row: its title, rename and delete share the row's editing state.
function ThreadRow({ thread, current, onNavigate }: { thread: Thread; current: boolean; onNavigate: () => void }) {
  const t = useDictionary();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<"view" | "rename" | "confirm-delete">("view");
  const [draft, setDraft] = useState(thread.title);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.threads.list.pathKey() });
  const rename = useMutation(
    trpc.threads.rename.mutationOptions({
      onSuccess: () => {
        setMode("view");
        void refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.threads.delete.mutationOptions({
      onSuccess: () => {
        void refresh();
        if (current) router.replace("/chat");
      },
    }),
  );
  const error = rename.error ?? remove.error;

  return (
    <li className={`chat-thread${current ? " chat-thread-current" : ""}`} data-testid="thread-item" data-thread-id={thread.id}>
      {mode === "rename" ? (
        <form
          className="chat-thread-rename"
          onSubmit={(e) => {
            e.preventDefault();
            rename.mutate({ id: thread.id, title: draft });
          }}
        >
          <label className="sr-only" htmlFor={`rename-${thread.id}`}>
            {t.chat.chatTitle}
          </label>
          <input
            id={`rename-${thread.id}`}
            className="input"
            value={draft}
            maxLength={200}
            autoFocus
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setMode("view");
            }}
          />
          <div className="row">
            <button type="submit" className="btn btn-primary" disabled={rename.isPending}>
              {t.common.save}
            </button>
            <button type="button" className="btn" onClick={() => setMode("view")}>
              {t.common.cancel}
            </button>
          </div>
        </form>
      ) : (
        <div className="chat-thread-row">
          <Link href={`/chat/${thread.id}`} className="chat-thread-link" aria-current={current ? "page" : undefined} onClick={onNavigate} data-testid="thread-link">
            {thread.running ? <span className="chat-spinner" role="img" aria-label={t.chat.answering} /> : null}
            <span className="chat-thread-title">{thread.title}</span>
          </Link>
          <div className="chat-thread-actions">
            <button
              type="button"
              className="chat-mini-btn"
              aria-label={t.chat.renameChat(thread.title)}
              title={t.common.rename}
              onClick={() => {
                setDraft(thread.title);
                setMode("rename");
              }}
            >
              <PencilIcon size={14} />
            </button>
            <button
              type="button"
              className="chat-mini-btn"
              aria-label={t.chat.deleteChat(thread.title)}
              title={t.common.delete}
              onClick={() => setMode("confirm-delete")}
            >
              <TrashIcon size={14} />
            </button>
          </div>
        </div>
      )}
      {mode === "confirm-delete" ? (
        <div className="chat-thread-confirm" role="group" aria-label={t.chat.deleteChatQuestion(thread.title)}>
          <span>{thread.running ? t.chat.deleteRunningConfirm : t.chat.deleteConfirm}</span>
          <div className="row">
            <button type="button" className="btn btn-danger" autoFocus disabled={remove.isPending} onClick={() => remove.mutate({ id: thread.id })}>
              {remove.isPending ? t.common.deleting : t.common.delete}
            </button>
            <button type="button" className="btn" onClick={() => setMode("view")}>
              {t.common.cancel}
            </button>
          </div>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="error-text chat-thread-error">
          {rename.error ? t.chat.renameFailed : t.chat.deleteFailed}
        </p>
      ) : null}
    </li>
  );
}
