"use client";

import Link from "next/link";
import { signOutAction } from "@/app/(auth)/actions";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { MenuIcon } from "./icons";
import { ModelBadge } from "./model-badge";
import { ThemeToggle } from "./theme-toggle";

export const TOGGLE_ID = "chat-sidebar-toggle";

export function ChatHeader({
  email,
  isAdmin,
  sidebarOpen,
  onToggleSidebar,
}: {
  email: string;
  isAdmin: boolean;
  sidebarOpen: boolean;
  onToggleSidebar: () => void;
}) {
  const t = useDictionary();
  return (
    <header className="chat-header">
      <div className="row chat-header-start">
        <button
          id={TOGGLE_ID}
          type="button"
          className="btn chat-icon-btn chat-sidebar-toggle"
          aria-label={sidebarOpen ? t.chat.hideChats : t.chat.showChats}
          aria-expanded={sidebarOpen}
          aria-controls="chat-sidebar"
          data-testid="sidebar-toggle"
          onClick={onToggleSidebar}
        >
          <MenuIcon size={18} />
        </button>
        <Link href="/chat" prefetch={false} className="chat-brand">
          Dispatch
        </Link>
        <ModelBadge />
      </div>
      <nav className="row chat-header-end" aria-label={t.chat.account}>
        {isAdmin ? (
          <Link href="/admin" className="chat-hide-narrow">
            {t.chat.admin}
          </Link>
        ) : null}
        <Link href="/chat/settings" className="chat-hide-narrow" data-testid="settings-link">
          {t.chat.settings}
        </Link>
        <ThemeToggle />
        <span className="muted chat-hide-narrow chat-email" data-testid="signed-in-as">
          {email}
        </span>
        <form action={signOutAction} className="chat-hide-narrow">
          <button className="btn" type="submit">
            {t.chat.signOut}
          </button>
        </form>
      </nav>
    </header>
  );
}
