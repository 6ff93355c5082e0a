import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { TopBar } from "@/components/top-bar";
import { TrpcProvider } from "@/components/trpc-provider";
import { AdminConsole } from "@/components/admin/admin-console";

export const dynamic = "force-dynamic";

export default async function AdminPage() {
  const principal = await getSessionPrincipal();
  if (!principal) redirect("/sign-in?callbackUrl=/admin");
  if (principal.role !== "admin") {
    return (
      <>
        <TopBar principal={principal} />
        <main className="page">
          <h1>403: admins only</h1>
          <p className="muted" data-testid="forbidden">
            Your account ({principal.email}) is not an administrator. Ask an admin to grant you access.
          </p>
        </main>
      </>
    );
  }
  return (
    <>
      <TopBar principal={principal} />
      <main className="page stack">
        <h1>Admin console</h1>
        <TrpcProvider>
          <AdminConsole currentUserId={principal.userId} />
        </TrpcProvider>
      </main>
    </>
  );
}
