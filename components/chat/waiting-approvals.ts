"use client";

import { useCallback } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useI18n } from "@/components/i18n/use-dictionary";

// The requests waiting for the user, as the sidebar's inbox reads them (tRPC approvalPolicy.inbox),
// shared with the chat that asks before superseding one (send-anyway-dialog.tsx).

export type Waiting = { id: string; threadId: string; question: string };

// Requests decided (or superseded) on this page: they wait no more, whatever a card or the
// inbox's last read still says.
const settled = new Set<string>();

/** The requests waiting in this thread: the inbox's, and those the page's own runs just asked. */
export function useWaitingApprovals(threadId: string, live: readonly Waiting[] = []): Waiting[] {
  const trpc = useTRPC();
  const { locale } = useI18n();
  const inbox = useQuery(trpc.approvalPolicy.inbox.queryOptions({ locale }));
  const fromInbox = (inbox.data?.items ?? []).filter((item) => item.threadId === threadId);
  const known = new Set(fromInbox.map((item) => item.id));
  return [...fromInbox, ...live.filter((item) => !known.has(item.id))].filter((item) => !settled.has(item.id));
}

/** A request decided on this page leaves the inbox at once (then the inbox reads again). */
export function useForgetWaiting(): (approvalId: string) => void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(
    (approvalId: string) => {
      settled.add(approvalId);
      const queryKey = trpc.approvalPolicy.inbox.pathKey();
      queryClient.setQueriesData<{ items: { id: string }[] }>({ queryKey }, (old) => (old ? { ...old, items: old.items.filter((item) => item.id !== approvalId) } : old));
      void queryClient.invalidateQueries({ queryKey });
    },
    [trpc, queryClient],
  );
}
