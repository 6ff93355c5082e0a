import { McpServersPanel } from "@/components/admin/mcp-servers-panel";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminMcpPage() {
  const t = (await requestDictionary()).console;
  return (
    <>
      <h1 className={styles.title}>{t.nav.mcp}</h1>
      <McpServersPanel />
    </>
  );
}
