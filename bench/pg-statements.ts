// Opt-in profile of what Dispatch's runs cost PostgreSQL, statement by statement (BENCH_PG_STATEMENTS=<file>):
// pg_stat_statements' time, calls, rows and WAL per statement, and each table's inserts, updates
// and HOT updates, over the same stretch bench/footprint.ts measures. Needs a cluster started with
// `shared_preload_libraries=pg_stat_statements` (and `pg_stat_statements.track=all` to see the
// statements inside SQL functions); without it the file says so and the bench goes on.
import { appendFileSync } from "node:fs";
import pg from "pg";

type TableCounts = Record<string, { ins: number; upd: number; hot: number; del: number }>;

const TABLES_SQL = `select relname as name, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot, n_tup_del::float8 as del
  from pg_stat_user_tables where schemaname = 'public'`;

async function tableCounts(client: pg.Client): Promise<TableCounts> {
  // The statistics are a snapshot per transaction unless cleared: read them fresh.
  await client.query("select pg_stat_clear_snapshot()");
  const { rows } = await client.query<{ name: string; ins: number; upd: number; hot: number; del: number }>(TABLES_SQL);
  return Object.fromEntries(rows.map((r) => [r.name, r]));
}

/** Starts a profile when asked for; the answer's `end(runs)` writes it. */
export async function startStatementProfile(url: string, label: string): Promise<{ end: (runs: number) => Promise<void> } | null> {
  const file = process.env.BENCH_PG_STATEMENTS;
  if (!file) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("create extension if not exists pg_stat_statements");
    await client.query("select pg_stat_statements_reset()");
  } catch (err) {
    appendFileSync(file, `## ${label}\n\nno pg_stat_statements: ${err instanceof Error ? err.message : String(err)}\n\n`);
    await client.end();
    return null;
  }
  const before = await tableCounts(client);
  return {
    end: async (runs) => {
      try {
        const after = await tableCounts(client);
        const { rows } = await client.query<{ calls: number; plans: number; planMs: number; ms: number; rows: number; wal: number; fpi: number; toplevel: boolean; query: string }>(
          `select calls::float8 as calls, plans::float8 as plans, total_plan_time as "planMs", total_exec_time as ms, rows::float8 as rows, wal_bytes::float8 as wal, wal_fpi::float8 as fpi, toplevel,
             regexp_replace(query, '\\s+', ' ', 'g') as query
           from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
           order by total_exec_time + total_plan_time desc limit 40`,
        );
        const per = (x: number) => (x / runs).toFixed(3);
        const lines = [`## ${label}: ${runs} runs`, "", "| top | calls/run | plans/run | plan ms/run | ms/run | rows/run | WAL B/run | FPI/run | statement |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"];
        for (const r of rows) lines.push(`| ${r.toplevel ? "y" : ""} | ${per(r.calls)} | ${per(r.plans)} | ${per(r.planMs)} | ${per(r.ms)} | ${per(r.rows)} | ${per(r.wal)} | ${per(r.fpi)} | ${r.query.slice(0, 160).replaceAll("|", "\\|")} |`);
        lines.push("", "| table | ins/run | upd/run | HOT upd/run | del/run |", "| --- | ---: | ---: | ---: | ---: |");
        for (const [name, a] of Object.entries(after)) {
          const b = before[name] ?? { ins: 0, upd: 0, hot: 0, del: 0 };
          if (a.ins === b.ins && a.upd === b.upd && a.del === b.del) continue;
          lines.push(`| ${name} | ${per(a.ins - b.ins)} | ${per(a.upd - b.upd)} | ${per(a.hot - b.hot)} | ${per(a.del - b.del)} |`);
        }
        appendFileSync(file, `${lines.join("\n")}\n\n`);
      } finally {
        await client.end();
      }
    },
  };
}
