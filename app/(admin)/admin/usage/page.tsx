import { UsagePanel } from "@/components/admin/usage-panel";
import { BudgetsPanel } from "@/components/admin/budgets-panel";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminUsagePage() {
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.nav.usage}</h1>
      <UsagePanel />
      <BudgetsPanel />
    </>
  );
}
