import { z } from "zod";
import { ThreadsTable } from "@/components/admin/threads-table";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

const searchSchema = z.object({ user: z.string().trim().min(1).max(254).optional().catch(undefined) });

export default async function AdminThreadsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const t = (await requestDictionary()).console;
  const { user } = searchSchema.parse(await searchParams);
  return (
    <>
      <h1 className={styles.title}>{t.nav.threads}</h1>
      <ThreadsTable key={user ?? ""} initialUserEmail={user ?? ""} />
    </>
  );
}
