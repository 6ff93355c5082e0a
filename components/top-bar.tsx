import Link from "next/link";
import { signOutAction } from "@/app/(auth)/actions";
import type { Principal } from "@/server/auth/session";

export function TopBar({ principal }: { principal: Principal }) {
  return (
    <header className="topbar">
      <nav aria-label="Main">
        <strong>Dispatch</strong>
        <Link href="/">Home</Link>
        {principal.role === "admin" ? <Link href="/admin">Admin</Link> : null}
      </nav>
      <div className="row">
        <span className="muted" data-testid="signed-in-as">
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
