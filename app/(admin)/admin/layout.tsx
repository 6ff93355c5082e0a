import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { TopBar } from "@/components/top-bar";
import { TrpcProvider } from "@/components/trpc-provider";
import { AdminNav } from "@/components/admin/admin-nav";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

// Every console page sits under this check; the data itself is guarded again per tRPC procedure.
export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  const principal = await getSessionPrincipal();
  if (!principal) redirect("/sign-in?callbackUrl=/admin");
  if (principal.role !== "admin") {
    const t = (await requestDictionary()).console;
    return (
      <>
        <TopBar principal={principal} />
        <main className="page">
          <h1>{t.forbiddenTitle}</h1>
          <p className="muted" data-testid="forbidden">
            {t.forbiddenText(principal.email)}
          </p>
        </main>
      </>
    );
  }
  return (
    <>
      <TopBar principal={principal} />
      <div className={styles.shell}>
        <AdminNav />
        <main className={styles.content}>
          <TrpcProvider>{children}</TrpcProvider>
        </main>
      </div>
    </>
  );
}
