import { RunnersPanel } from "@/components/admin/runners-panel";
import { BindingsPanel } from "@/components/admin/bindings-panel";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default function AdminRunnersPage() {
  return (
    <>
      <h1 className={styles.title}>Runners</h1>
      <RunnersPanel />
      <BindingsPanel />
    </>
  );
}
