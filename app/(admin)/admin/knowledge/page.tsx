import { KnowledgeBasesPanel } from "@/components/admin/knowledge-bases-panel";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminKnowledgePage() {
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.nav.knowledge}</h1>
      <KnowledgeBasesPanel />
    </>
  );
}
