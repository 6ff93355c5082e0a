import { RunnersPanel } from "@/components/admin/runners-panel";
import { BindingsPanel } from "@/components/admin/bindings-panel";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminRunnersPage() {
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.nav.runners}</h1>
      <RunnersPanel />
      <BindingsPanel />
    </>
  );
}
