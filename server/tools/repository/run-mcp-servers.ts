import "server-only";
import { getPool } from "@/server/db";
import type { McpToolInfo } from "@/server/tools/mcp/tool-info";

// Which MCP servers a run may use, read with the run (dispatch_agent_context) or alone. The
// servers and grants themselves are written by server/tools/mcp/repository.ts.

/** A server as one run may use it: the tools its grants allow. */
export type RunMcpServer = { id: string; name: string; tools: McpToolInfo[] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The servers a run may use: those granted to its user or to its binding, each with the tools
 * its grants allow (an empty grant list allows them all; several grants add up).
 */
export async function findRunMcpServers({ runId, userId }: { runId: string; userId: string }): Promise<RunMcpServer[]> {
  const { rows } = await getPool().query<RunMcpServerJson>({
    name: "dispatch-mcp-servers-for-run",
    text: `select s.id, s.name, s.tools, jsonb_agg(coalesce(g.tools, '{}')) as allowed
           from mcp_servers s
           join mcp_server_grants g on g.server_id = s.id
           left join runs r on r.id = $1 and r.user_id = $2
           where g.user_id = $2 or (g.binding_id is not null and g.binding_id = r.binding_id)
           group by s.id order by s.name`,
    // A run id that is no runs row (a tool call outside a run) has no binding.
    values: [UUID.test(runId) ? runId : null, userId],
  });
  return rows.map(toRunMcpServer);
}

/** A server a run may use as the statements read it (also dispatch_agent_context's `mcpServers`): each grant's tool list. */
export type RunMcpServerJson = { id: string; name: string; tools: McpToolInfo[]; allowed: string[][] };

export function toRunMcpServer(r: RunMcpServerJson): RunMcpServer {
  const all = r.allowed.some((list) => list.length === 0);
  const names = new Set(r.allowed.flat());
  return { id: r.id, name: r.name, tools: all ? r.tools : r.tools.filter((t) => names.has(t.name)) };
}

