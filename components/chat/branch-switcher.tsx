"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "@/components/trpc-provider";
import { useI18n } from "@/components/i18n/use-dictionary";
import type { BranchPoint } from "@/server/protocols/threads/branches";
import { useMessageActions } from "./message-actions";

// ‹ 2/3 › under a message that has siblings (docs/branches.md): each sibling starts a branch of the
// thread (a regenerated answer, an edited question). A click makes the neighbour's branch the
// thread's current one, and the page shows it.

export function BranchSwitcher({ threadId, point }: { threadId: string; point: BranchPoint }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const actions = useMessageActions();
  const switchTo = useMutation(trpc.threads.switchBranch.mutationOptions({ onSuccess: () => router.refresh() }));
  const busy = switchTo.isPending || (actions?.busy ?? false);
  const go = (index: number) => switchTo.mutate({ id: threadId, siblingId: point.siblingIds[index]! });
  const shown = point.index + 1;
  return (
    <nav className="chat-branches" aria-label={t.chat.versions} data-testid="branch-switcher" data-message-id={point.messageId}>
      <button type="button" className="chat-mini-btn" aria-label={t.chat.previousVersion} title={t.chat.previousVersion} disabled={busy || point.index === 0} onClick={() => go(point.index - 1)} data-testid="branch-previous">
        ‹
      </button>
      <span aria-label={t.chat.versionOf(shown, point.count)} data-testid="branch-position">
        {shown}/{point.count}
      </span>
      <button
        type="button"
        className="chat-mini-btn"
        aria-label={t.chat.nextVersion}
        title={t.chat.nextVersion}
        disabled={busy || point.index === point.count - 1}
        onClick={() => go(point.index + 1)}
        data-testid="branch-next"
      >
        ›
      </button>
    </nav>
  );
}
