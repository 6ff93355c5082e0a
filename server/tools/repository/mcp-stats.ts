import "server-only";
import { getPool } from "@/server/db";

// Calls per tool of each registered MCP server (mcp_tool_stats), for the console: counted as
// each call ends, on whichever instance made it.

export type McpToolStat = { serverId: string; tool: string; calls: number; failures: number; avgMs: number; lastMs: number; lastCallAt: Date; lastError: string | null; lastErrorAt: Date | null };

/** Counts one call of `tool`: its time, and the code it failed with (null when it answered). */
export async function recordMcpToolCall({ serverId, tool, ms, errorCode }: { serverId: string; tool: string; ms: number; errorCode: string | null }): Promise<void> {
  await getPool().query({
    name: "dispatch-mcp-tool-stat",
    text: `insert into mcp_tool_stats as s (server_id, tool, calls, failures, total_ms, last_ms, last_call_at, last_error, last_error_at)
           values ($1, $2, 1, case when $4::text is null then 0 else 1 end, $3::int, $3::int, now(), $4::text, case when $4::text is null then null else now() end)
           on conflict (server_id, tool) do update set
             calls = s.calls + 1,
             failures = s.failures + excluded.failures,
             total_ms = s.total_ms + excluded.total_ms,
             last_ms = excluded.last_ms,
             last_call_at = excluded.last_call_at,
             last_error = coalesce(excluded.last_error, s.last_error),
             last_error_at = coalesce(excluded.last_error_at, s.last_error_at)`,
    values: [serverId, tool, Math.round(ms), errorCode],
  });
}

export async function listMcpToolStats(): Promise<McpToolStat[]> {
  const { rows } = await getPool().query<McpToolStat>(
    `select server_id as "serverId", tool, calls, failures, round(total_ms::numeric / greatest(calls, 1))::int as "avgMs", last_ms as "lastMs",
            last_call_at as "lastCallAt", last_error as "lastError", last_error_at as "lastErrorAt"
     from mcp_tool_stats order by server_id, tool`,
  );
  return rows;
}
