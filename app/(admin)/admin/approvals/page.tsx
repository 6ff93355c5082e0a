import { WaitingApprovals } from "@/components/admin/waiting-approvals";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminApprovalsPage() {
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.nav.approvals}</h1>
      <WaitingApprovals />
    </>
  );
}
