"use client";

import { useCallback } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useI18n } from "@/components/i18n/use-dictionary";

// The requests waiting for the user, as the sidebar's inbox reads them (tRPC approvalPolicy.inbox),
// shared with the chat that asks before superseding one (send-anyway-dialog.tsx).

export type Waiting = { id: string; threadId: string; question: string };

/** The requests waiting in this thread. */
export function useWaitingApprovals(threadId: string): Waiting[] {
  const trpc = useTRPC();
  const { locale } = useI18n();
  const inbox = useQuery(trpc.approvalPolicy.inbox.queryOptions({ locale }));
  return (inbox.data?.items ?? []).filter((item) => item.threadId === threadId);
}

/** A request decided on this page leaves the inbox at once (then the inbox reads again). */
export function useForgetWaiting(): (approvalId: string) => void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(
    (approvalId: string) => {
      const queryKey = trpc.approvalPolicy.inbox.pathKey();
      queryClient.setQueriesData<{ items: { id: string }[] }>({ queryKey }, (old) => (old ? { ...old, items: old.items.filter((item) => item.id !== approvalId) } : old));
      void queryClient.invalidateQueries({ queryKey });
    },
    [trpc, queryClient],
  );
}
