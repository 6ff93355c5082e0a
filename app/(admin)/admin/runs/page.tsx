import { RunsTable } from "@/components/admin/runs-table";
import { runFiltersFromSearch, runFiltersToSearch, type SearchParamsRecord } from "@/components/admin/run-filters";
import { requestDictionary } from "@/components/i18n/request-locale";
import styles from "@/components/admin/admin.module.css";

export const dynamic = "force-dynamic";

export default async function AdminRunsPage({ searchParams }: { searchParams: Promise<SearchParamsRecord> }) {
  const t = (await requestDictionary()).console;
  const filters = runFiltersFromSearch(await searchParams);
  return (
    <>
      <h1 className={styles.title}>{t.nav.runs}</h1>
      {/* Keyed by the filters so links that change the query start from their own filters. */}
      <RunsTable key={runFiltersToSearch(filters)} initialFilters={filters} />
    </>
  );
}
