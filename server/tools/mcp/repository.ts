import "server-only";
import { createHash } from "node:crypto";
import { getPool } from "@/server/db";
import type { McpToolInfo } from "./tool-info";

// Every SQL statement about MCP servers (mcp_servers) and who may use them (mcp_server_grants).
// The sealed auth is read only by the connection pool (findServerConnection); every other read
// leaves it out, so it cannot reach a list, a log or an answer by accident.

export type McpServerRow = { id: string; name: string; url: string; hasAuth: boolean; timeoutMs: number; tools: McpToolInfo[]; toolsAt: Date; updatedAt: Date };
export type McpServerConnectionRow = { id: string; name: string; url: string; authSealed: string | null; timeoutMs: number; updatedAt: Date };
export type McpGrantRow = { id: string; serverId: string; userId: string | null; userEmail: string | null; bindingId: string | null; tools: string[] };

const COLUMNS = `id, name, url, auth_sealed is not null as "hasAuth", timeout_ms as "timeoutMs", tools, tools_at as "toolsAt", updated_at as "updatedAt"`;

export async function insertMcpServer(row: { name: string; url: string; authSealed: string | null; timeoutMs: number; tools: McpToolInfo[] }): Promise<McpServerRow | null> {
  const { rows } = await getPool().query<McpServerRow>(
    `insert into mcp_servers (id, name, url, auth_sealed, timeout_ms, tools, tools_at, updated_at)
     values (gen_random_uuid(), $1, $2, $3, $4, $5, now(), now())
     on conflict (name) do nothing
     returning ${COLUMNS}`,
    [row.name, row.url, row.authSealed, row.timeoutMs, JSON.stringify(row.tools)],
  );
  return rows[0] ?? null;
}

export async function listMcpServers(): Promise<McpServerRow[]> {
  const { rows } = await getPool().query<McpServerRow>(`select ${COLUMNS} from mcp_servers order by name`);
  return rows;
}

export async function findMcpServerByName({ name }: { name: string }): Promise<McpServerRow | null> {
  const { rows } = await getPool().query<McpServerRow>(`select ${COLUMNS} from mcp_servers where name = $1`, [name]);
  return rows[0] ?? null;
}

/** What a connection needs, the sealed auth included: for the connection pool only. */
export async function findMcpServerConnection({ id }: { id: string }): Promise<McpServerConnectionRow | null> {
  const { rows } = await getPool().query<McpServerConnectionRow>(
    `select id, name, url, auth_sealed as "authSealed", timeout_ms as "timeoutMs", updated_at as "updatedAt" from mcp_servers where id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** A fresh tools/list (at registration, on refresh, on notifications/tools/list_changed). */
export async function updateMcpServerTools({ id, tools }: { id: string; tools: McpToolInfo[] }): Promise<void> {
  await getPool().query(`update mcp_servers set tools = $2, tools_at = now() where id = $1`, [id, JSON.stringify(tools)]);
}

/** False when no server has that name; its grants go with it. */
export async function deleteMcpServer({ name }: { name: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from mcp_servers where name = $1`, [name]);
  return (rowCount ?? 0) > 0;
}

export async function insertMcpGrant(row: { serverId: string; userId: string | null; bindingId: string | null; tools: readonly string[] }): Promise<string> {
  const { rows } = await getPool().query<{ id: string }>(
    `insert into mcp_server_grants (id, server_id, user_id, binding_id, tools) values (gen_random_uuid(), $1, $2, $3, $4) returning id`,
    [row.serverId, row.userId, row.bindingId, row.tools],
  );
  return rows[0]!.id;
}

export async function deleteMcpGrant({ id }: { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from mcp_server_grants where id = $1`, [id]);
  return (rowCount ?? 0) > 0;
}

export async function listMcpGrants(): Promise<McpGrantRow[]> {
  const { rows } = await getPool().query<McpGrantRow>(
    `select g.id, g.server_id as "serverId", g.user_id as "userId", u.email as "userEmail", g.binding_id as "bindingId", coalesce(g.tools, '{}') as tools
     from mcp_server_grants g left join users u on u.id = g.user_id order by g.created_at`,
  );
  return rows;
}

/** The key a write of an MCP tool is made once under: project_cli's (tool_effects). */
export type McpEffectKey = { userId: string; runId: string; toolCallId: string };

export type McpEffectClaim = { state: "claimed" } | { state: "answered"; output: unknown } | { state: "unfinished" } | { state: "reused" };

const hashInput = (input: unknown) => createHash("sha256").update(JSON.stringify(input) ?? "null").digest("base64url");

/**
 * Claims the key, committed at once, before the call goes out: the server's effect is outside the
 * database, so the claim cannot share its transaction (unlike a project_cli write's). A claim
 * found without an answer is a call that may have been made and never finished.
 */
export async function claimMcpEffect(key: McpEffectKey & { action: string; input: unknown }): Promise<McpEffectClaim> {
  const inputHash = hashInput(key.input);
  const { rowCount } = await getPool().query(
    `insert into tool_effects (user_id, run_id, tool_call_id, action, input_hash) values ($1, $2, $3, $4, $5)
     on conflict (user_id, run_id, tool_call_id) do nothing`,
    [key.userId, key.runId, key.toolCallId, key.action, inputHash],
  );
  if (rowCount === 1) return { state: "claimed" };
  const { rows } = await getPool().query<{ action: string; inputHash: string; output: unknown }>(
    `select action, input_hash as "inputHash", output from tool_effects where user_id = $1 and run_id = $2 and tool_call_id = $3`,
    [key.userId, key.runId, key.toolCallId],
  );
  const earlier = rows[0];
  if (!earlier || earlier.action !== key.action || earlier.inputHash !== inputHash) return { state: "reused" };
  return earlier.output === null ? { state: "unfinished" } : { state: "answered", output: earlier.output };
}

export async function recordMcpEffect(key: McpEffectKey & { output: unknown }): Promise<void> {
  await getPool().query(`update tool_effects set output = $4 where user_id = $1 and run_id = $2 and tool_call_id = $3`, [
    key.userId,
    key.runId,
    key.toolCallId,
    JSON.stringify(key.output),
  ]);
}
