"use client";

import { useCallback, useEffect, useState } from "react";
import { usePathname } from "next/navigation";
import { ChatHeader, TOGGLE_ID } from "./chat-header";
import { ThreadSidebar } from "./thread-sidebar";

// Matches the breakpoint in app/globals.css where the sidebar becomes a drawer.
const DRAWER_QUERY = "(max-width: 760px)";

/** Header, the list of chats (a drawer on narrow screens) and the open chat. */
export function ChatShell({ email, isAdmin, children }: { email: string; isAdmin: boolean; children: React.ReactNode }) {
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const pathname = usePathname();
  const [lastPath, setLastPath] = useState(pathname);
  // Opening another chat closes the drawer on a phone.
  if (pathname !== lastPath) {
    setLastPath(pathname);
    setSidebarOpen(false);
  }
  const close = useCallback(() => setSidebarOpen(false), []);

  useEffect(() => {
    if (!sidebarOpen) return;
    // As a drawer (narrow screens) the list takes focus, and Escape gives it back to the toggle.
    if (window.matchMedia(DRAWER_QUERY).matches) document.querySelector<HTMLElement>("#chat-sidebar button")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setSidebarOpen(false);
      document.getElementById(TOGGLE_ID)?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [sidebarOpen]);

  return (
    <div className="chat-app" data-sidebar={sidebarOpen ? "open" : "closed"}>
      <ChatHeader email={email} isAdmin={isAdmin} sidebarOpen={sidebarOpen} onToggleSidebar={() => setSidebarOpen((o) => !o)} />
      <div className="chat-body">
        <ThreadSidebar isAdmin={isAdmin} onNavigate={close} />
        {sidebarOpen ? <div className="chat-backdrop" aria-hidden="true" onClick={close} /> : null}
        <main className="chat-main" id="chat-main">
          {children}
        </main>
      </div>
    </div>
  );
}
