import Link from "next/link";
import { signOutAction } from "@/app/(auth)/actions";
import type { Principal } from "@/server/auth/session";
import { ThemeToggle } from "./chat/theme-toggle";

export function TopBar({ principal }: { principal: Principal }) {
  return (
    <header className="topbar">
      <nav aria-label="Main">
        <strong>Dispatch</strong>
        <Link href="/chat">Chat</Link>
        {principal.role === "admin" ? <Link href="/admin">Admin</Link> : null}
      </nav>
      <div className="row topbar-end">
        {/* The same choice as the chat's toggle: one theme for the whole app. */}
        <ThemeToggle />
        <span className="muted topbar-email" data-testid="signed-in-as">
          {principal.email}
        </span>
        <form action={signOutAction}>
          <button className="btn" type="submit">
            Sign out
          </button>
        </form>
      </div>
    </header>
  );
}
