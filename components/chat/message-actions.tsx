"use client";

import { createContext, useContext } from "react";
import type { SendInput } from "./use-chat-runs";

// What a message's buttons can do in the open chat: send a new question (edit and resend), and
// answer an approval request and follow the run that continues.
// History rendered on the server sits inside the chat view, so its messages get it too;
// elsewhere (the console) there is no provider and the buttons that need it are left out.

export type MessageActions = {
  send: (input: SendInput) => void;
  /** Posts a decision; the chat is busy from the click until the continuation is followed. */
  decide: (post: () => Promise<string | null>) => Promise<boolean>;
  busy: boolean;
  /**
   * The stored message a branching question (an edit, a regenerate) forks at, while its run goes:
   * the view leaves out that message and what followed it, the old branch (docs/branches.md).
   */
  forkedAt: string | null;
};

export const MessageActionsContext = createContext<MessageActions | null>(null);

export function useMessageActions(): MessageActions | null {
  return useContext(MessageActionsContext);
}
