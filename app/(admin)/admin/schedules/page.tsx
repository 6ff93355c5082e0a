import { SchedulesPanel } from "@/components/admin/schedules-panel";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminSchedulesPage() {
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.nav.schedules}</h1>
      <SchedulesPanel />
    </>
  );
}
