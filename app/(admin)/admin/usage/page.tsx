import { UsagePanel } from "@/components/admin/usage-panel";
import { BudgetsPanel } from "@/components/admin/budgets-panel";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default function AdminUsagePage() {
  return (
    <>
      <h1 className={styles.title}>Usage</h1>
      <UsagePanel />
      <BudgetsPanel />
    </>
  );
}
