import "server-only";
import { getPool } from "@/server/db";

// What an MCP client's call needs to know about its caller, in one statement: the approval policy
// in force (`auto` when its API key approves by itself, as a run the key starts would be; an OAuth
// client, with no key, has the user's own) and the
// skills the user hid, which the tool list leaves out as the agent's prompt does.

export type McpCaller = { policy: string; hiddenSkills: string[] };

export async function findMcpCaller({ userId, apiKeyHash }: { userId: string; apiKeyHash: string | null }): Promise<McpCaller | null> {
  const { rows } = await getPool().query<McpCaller>({
    name: "dispatch-mcp-serve-caller",
    text: `select case when exists (select 1 from api_keys k where k.key_hash = $2 and k.user_id = u.id and k.auto_approve and k.revoked_at is null)
                       then 'auto' else u.approval_policy end as policy,
                  coalesce(u.hidden_skills, '{}') as "hiddenSkills"
           from users u where u.id = $1`,
    values: [userId, apiKeyHash],
  });
  return rows[0] ?? null;
}
