import Link from "next/link";
import { signOutAction } from "@/app/(auth)/actions";
import type { Principal } from "@/server/auth/session";
import { ThemeToggle } from "./chat/theme-toggle";
import { requestDictionary } from "./i18n/request-locale";

export async function TopBar({ principal }: { principal: Principal }) {
  const t = (await requestDictionary()).console.topBar;
  return (
    <header className="topbar">
      <nav aria-label={t.main}>
        <strong>Dispatch</strong>
        <Link href="/chat">{t.chat}</Link>
        {principal.role === "admin" ? <Link href="/admin">{t.admin}</Link> : null}
      </nav>
      <div className="row topbar-end">
        {/* The same choice as the chat's toggle: one theme for the whole app. */}
        <ThemeToggle />
        <span className="muted topbar-email" data-testid="signed-in-as">
          {principal.email}
        </span>
        <form action={signOutAction}>
          <button className="btn" type="submit">
            {t.signOut}
          </button>
        </form>
      </div>
    </header>
  );
}
