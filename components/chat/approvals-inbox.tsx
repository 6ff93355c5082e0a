"use client";

import { useState } from "react";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary, useI18n, useRequestErrorText } from "@/components/i18n/use-dictionary";
import { sendDecision } from "./approval-card";
import { useForgetWaiting } from "./waiting-approvals";

// The requests waiting for the user across their threads (docs/approvals.md, "The inbox"): a
// count in the sidebar that opens the list, each request as its question with the chat it waits
// in, decided from here. A decision resumes that chat's run on the server; opening the chat shows it.

const REFRESH_MS = 20_000;

export function ApprovalsInbox({ onNavigate }: { onNavigate: () => void }) {
  const t = useDictionary().approvals;
  const { locale } = useI18n();
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const inbox = useQuery({ ...trpc.approvalPolicy.inbox.queryOptions({ locale }), refetchInterval: REFRESH_MS });
  const items = inbox.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section className="chat-inbox" aria-label={t.inboxTitle} data-testid="approvals-inbox">
      <button type="button" className="btn chat-inbox-toggle" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="approvals-inbox-toggle">
        {t.inboxTitle} <span className="chat-inbox-count" data-testid="approvals-inbox-count">{items.length}</span>
      </button>
      {open ? (
        <ul className="chat-inbox-list" data-testid="approvals-inbox-list">
          {items.map((item) => (
            <InboxRow key={item.id} item={item} onNavigate={onNavigate} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

type Item = { id: string; threadId: string; threadTitle: string; question: string };

function InboxRow({ item, onNavigate }: { item: Item; onNavigate: () => void }) {
  const t = useDictionary().approvals;
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const forget = useForgetWaiting();
  const decide = useMutation({
    mutationFn: async (approve: boolean) => {
      const answer = await sendDecision(item.id, { approve }, t.notRecorded);
      forget(item.id);
      return answer;
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.approvalPolicy.inbox.pathKey() }),
  });
  return (
    <li className="chat-inbox-item" data-testid="approvals-inbox-item" data-approval-id={item.id}>
      <p className="chat-inbox-question">{item.question}</p>
      <Link href={`/chat/${item.threadId}`} onClick={onNavigate} className="muted chat-inbox-thread">
        {t.inboxIn(item.threadTitle)}
      </Link>
      <div className="chat-inbox-actions" role="group" aria-label={item.question}>
        <button type="button" className="btn btn-primary" disabled={decide.isPending} onClick={() => decide.mutate(true)} data-testid="approvals-inbox-approve">
          {t.approve}
        </button>
        <button type="button" className="btn" disabled={decide.isPending} onClick={() => decide.mutate(false)} data-testid="approvals-inbox-deny">
          {t.deny}
        </button>
      </div>
      {decide.error ? (
        <p role="alert" className="error-text">
          {errorText(decide.error)}
        </p>
      ) : null}
    </li>
  );
}
