import Link from "next/link";
import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { TopBar } from "@/components/top-bar";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const principal = await getSessionPrincipal();
  if (!principal) redirect("/sign-in");
  return (
    <>
      <TopBar principal={principal} />
      <main className="page stack">
        <h1>Welcome, {principal.email}</h1>
        <p className="muted">
          Dispatch runs agents behind open protocols. Call <code>POST /api/v1/agent/runs</code> with an API key, or use
          the web chat.
        </p>
        {principal.role === "admin" ? (
          <p>
            <Link href="/admin">Open the admin console</Link>
          </p>
        ) : null}
      </main>
    </>
  );
}
