import { KnowledgeBasesPanel } from "@/components/admin/knowledge-bases-panel";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default function AdminKnowledgePage() {
  return (
    <>
      <h1 className={styles.title}>Knowledge</h1>
      <KnowledgeBasesPanel />
    </>
  );
}
