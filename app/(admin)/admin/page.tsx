import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { AdminConsole } from "@/components/admin/admin-console";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminOverviewPage() {
  const principal = await getSessionPrincipal();
  if (!principal) redirect("/sign-in?callbackUrl=/admin");
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.title}</h1>
      <AdminConsole currentUserId={principal.userId} />
    </>
  );
}
