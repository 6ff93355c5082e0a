import "server-only";
import { getPool, withTransaction } from "../../db";
import type { AgentBindingModel, AgentRunnerModel, RunModel, RunnerEndpointModel } from "../../generated/prisma/models";
import type { AgentRunnerManifest } from "../../protocols/runner/manifest";
import type { MultitaskStrategy } from "../../protocols/ag-ui/multitask";
import type { Db } from "../../kernel/sql";
import type { BindingPolicy, RunAuthorization } from "../policy";

/** An endpoint without its secret's hash; `warnings` are the manifests its last discovery skipped. */
export type EndpointRow = Omit<RunnerEndpointModel, "secretHash" | "warnings" | "kind" | "options"> & {
  warnings: { runner_id: string | null; reason: string }[];
  kind: "runner" | "ag-ui";
  options: Record<string, unknown>;
};

export type RunnerRow = Omit<AgentRunnerModel, "manifest"> & { manifest: AgentRunnerManifest };

export type BindingScope = "default" | "user" | "thread";

export type BindingRow = Omit<AgentBindingModel, "scope" | "config" | "policy" | "multitaskStrategy"> & {
  scope: BindingScope;
  multitaskStrategy: MultitaskStrategy | null;
  config: Record<string, unknown>;
  policy: BindingPolicy;
};

const ENDPOINT_COLUMNS = `id, base_url as "baseUrl", secret_sealed as "secretSealed", status, last_error as "lastError", warnings,
  refreshed_at as "refreshedAt", created_at as "createdAt", kind, options`;
const RUNNER_COLUMNS = `id, endpoint_id as "endpointId", name, manifest, available, created_at as "createdAt", updated_at as "updatedAt"`;
export const bindingColumns = (t = "agent_bindings") =>
  `${t}.id, ${t}.runner_id as "runnerId", ${t}.scope, ${t}.user_id as "userId", ${t}.thread_id as "threadId", ${t}.event_types as "eventTypes",
  ${t}.config, ${t}.policy, ${t}.enabled, ${t}.auto_approve as "autoApprove", ${t}.multitask_strategy as "multitaskStrategy", ${t}.created_at as "createdAt", ${t}.updated_at as "updatedAt"`;
const BINDING_COLUMNS = bindingColumns();

/** Null when the URL is an AG-UI agent's (an endpoint of the other kind is never re-keyed as a runner). */
export async function upsertEndpoint(data: { baseUrl: string; secretSealed: string; secretHash: string }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(
    `insert into runner_endpoints (id, base_url, secret_sealed, secret_hash) values (gen_random_uuid(), $1, $2, $3)
     on conflict (base_url) do update set secret_sealed = excluded.secret_sealed, secret_hash = excluded.secret_hash
       where runner_endpoints.kind = 'runner'
     returning ${ENDPOINT_COLUMNS}`,
    [data.baseUrl, data.secretSealed, data.secretHash],
  );
  return rows[0] ?? null;
}

/**
 * Registers (or updates) an AG-UI agent and its one runner in one transaction. `secretHash` is a
 * value no runner secret hashes to, so the agent's endpoint never authenticates on the host API.
 * Refuses (null) a URL that a runner endpoint holds, or a runner id another endpoint serves.
 */
export function upsertAgUiEndpoint(data: {
  baseUrl: string;
  headersSealed: string;
  secretHash: string;
  options: Record<string, unknown>;
  manifest: AgentRunnerManifest;
}): Promise<EndpointRow | null> {
  return withTransaction(async (db) => {
    const { rows } = await db.query<EndpointRow>(
      `insert into runner_endpoints (id, base_url, secret_sealed, secret_hash, kind, options, status, refreshed_at)
       values (gen_random_uuid(), $1, $2, $3, 'ag-ui', $4, 'ok', now())
       on conflict (base_url) do update set secret_sealed = excluded.secret_sealed, options = excluded.options, refreshed_at = now()
         where runner_endpoints.kind = 'ag-ui'
       returning ${ENDPOINT_COLUMNS}`,
      [data.baseUrl, data.headersSealed, data.secretHash, JSON.stringify(data.options)],
    );
    const endpoint = rows[0];
    if (!endpoint) return null;
    const m = data.manifest;
    const { rowCount } = await db.query(
      `insert into agent_runners (id, endpoint_id, name, manifest, available, updated_at) values ($1, $2, $3, $4, true, now())
       on conflict (id) do update set name = excluded.name, manifest = excluded.manifest, available = true, updated_at = now()
         where agent_runners.endpoint_id = excluded.endpoint_id`,
      [m.id, endpoint.id, m.name, JSON.stringify(m)],
    );
    if (rowCount === 0) throw new RunnerIdTaken(m.id);
    await db.query(`update agent_runners set available = false, updated_at = now() where endpoint_id = $1 and id <> $2`, [endpoint.id, m.id]);
    return endpoint;
  });
}

/** The runner id is served by another endpoint (or built in): the transaction is rolled back. */
export class RunnerIdTaken extends Error {
  constructor(readonly runnerId: string) {
    super(`Runner id ${runnerId} is taken`);
  }
}

export async function findEndpoint({ id }: { id: string }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(`select ${ENDPOINT_COLUMNS} from runner_endpoints where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findEndpointBySecretHash({ secretHash }: { secretHash: string }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(`select ${ENDPOINT_COLUMNS} from runner_endpoints where secret_hash = $1`, [secretHash]);
  return rows[0] ?? null;
}

export async function listEndpoints(): Promise<EndpointRow[]> {
  const { rows } = await getPool().query<EndpointRow>(`select ${ENDPOINT_COLUMNS} from runner_endpoints order by created_at`);
  return rows;
}

export async function deleteEndpoint({ id }: { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from runner_endpoints where id = $1`, [id]);
  return (rowCount ?? 0) > 0;
}

/** The outcome of a discovery, in one transaction: the endpoint's health and the runners it lists now. */
export function recordDiscovery(data: {
  endpointId: string;
  status: "ok" | "unreachable" | "invalid";
  lastError: string | null;
  warnings: EndpointRow["warnings"];
  manifests: AgentRunnerManifest[];
}): Promise<void> {
  return withTransaction(async (db) => {
    await db.query(`update runner_endpoints set status = $2, last_error = $3, warnings = $4, refreshed_at = now() where id = $1`, [
      data.endpointId,
      data.status,
      data.lastError,
      JSON.stringify(data.warnings),
    ]);
    if (data.status === "unreachable") return; // keep what we knew; runs will fail with a clear reason
    for (const m of data.manifests) {
      await db.query(
        `insert into agent_runners (id, endpoint_id, name, manifest, available, updated_at) values ($1, $2, $3, $4, true, now())
         on conflict (id) do update set endpoint_id = excluded.endpoint_id, name = excluded.name, manifest = excluded.manifest,
           available = true, updated_at = now()`,
        [m.id, data.endpointId, m.name, JSON.stringify(m)],
      );
    }
    await db.query(`update agent_runners set available = false, updated_at = now() where endpoint_id = $1 and not (id = any($2::text[]))`, [
      data.endpointId,
      data.manifests.map((m) => m.id),
    ]);
  });
}

/** Refuses (returns the owner) when an id is already served by another endpoint or built in. */
export async function findRunnerOwners({ ids }: { ids: string[] }, db: Db = getPool()): Promise<{ id: string; endpointId: string | null }[]> {
  const { rows } = await db.query<{ id: string; endpointId: string | null }>(
    `select id, endpoint_id as "endpointId" from agent_runners where id = any($1::text[])`,
    [ids],
  );
  return rows;
}

export async function upsertBuiltinRunner(manifest: AgentRunnerManifest): Promise<void> {
  await getPool().query(
    `insert into agent_runners (id, endpoint_id, name, manifest, available, updated_at) values ($1, null, $2, $3, true, now())
     on conflict (id) do update set manifest = excluded.manifest, name = excluded.name, available = true, updated_at = now()`,
    [manifest.id, manifest.name, JSON.stringify(manifest)],
  );
}

export async function findRunner({ id }: { id: string }): Promise<RunnerRow | null> {
  const { rows } = await getPool().query<RunnerRow>(`select ${RUNNER_COLUMNS} from agent_runners where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listRunners(): Promise<RunnerRow[]> {
  const { rows } = await getPool().query<RunnerRow>(`select ${RUNNER_COLUMNS} from agent_runners order by endpoint_id nulls first, id`);
  return rows;
}

export async function insertBinding(data: {
  runnerId: string;
  scope: BindingScope;
  userId: string | null;
  threadId: string | null;
  eventTypes: string[];
  config: Record<string, unknown>;
  policy: BindingPolicy;
  autoApprove?: boolean;
  multitaskStrategy?: string | null;
}): Promise<BindingRow> {
  const { rows } = await getPool().query<BindingRow>(
    `insert into agent_bindings (id, runner_id, scope, user_id, thread_id, event_types, config, policy, auto_approve, multitask_strategy, updated_at)
     values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, now()) returning ${BINDING_COLUMNS}`,
    [data.runnerId, data.scope, data.userId, data.threadId, data.eventTypes, JSON.stringify(data.config), JSON.stringify(data.policy), data.autoApprove ?? false, data.multitaskStrategy ?? null],
  );
  return rows[0]!;
}

export async function updateBinding(
  id: string,
  data: { enabled?: boolean; config?: Record<string, unknown>; policy?: BindingPolicy; eventTypes?: string[]; autoApprove?: boolean; multitaskStrategy?: string | null },
): Promise<BindingRow | null> {
  const { rows } = await getPool().query<BindingRow>(
    `update agent_bindings set enabled = coalesce($2, enabled), config = coalesce($3::jsonb, config), policy = coalesce($4::jsonb, policy),
       event_types = coalesce($5, event_types), auto_approve = coalesce($6, auto_approve),
       multitask_strategy = case when $7::boolean then $8 else multitask_strategy end, updated_at = now()
     where id = $1 returning ${BINDING_COLUMNS}`,
    [
      id,
      data.enabled ?? null,
      data.config ? JSON.stringify(data.config) : null,
      data.policy ? JSON.stringify(data.policy) : null,
      data.eventTypes ?? null,
      data.autoApprove ?? null,
      data.multitaskStrategy !== undefined,
      data.multitaskStrategy ?? null,
    ],
  );
  return rows[0] ?? null;
}

export async function deleteBinding({ id }: { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from agent_bindings where id = $1`, [id]);
  return (rowCount ?? 0) > 0;
}

export async function findBinding({ id }: { id: string }): Promise<BindingRow | null> {
  const { rows } = await getPool().query<BindingRow>(`select ${BINDING_COLUMNS} from agent_bindings where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listBindings(): Promise<(BindingRow & { userEmail: string | null })[]> {
  const { rows } = await getPool().query<BindingRow & { userEmail: string | null }>(
    `select ${bindingColumns("b")}, u.email as "userEmail"
     from agent_bindings b left join users u on u.id = b.user_id order by b.created_at desc`,
  );
  return rows;
}

/**
 * The binding that answers an event: the narrowest enabled one (thread, then user, then
 * default) whose runner is available; the newest wins within a scope (dispatch_effective_binding).
 */
export async function findEffectiveBinding({ userId, threadId, eventType }: { userId: string; threadId: string; eventType: string }): Promise<BindingRow | null> {
  const { rows } = await getPool().query<BindingRow>(
    `select ${bindingColumns("b")} from agent_bindings b where b.id = (select id from dispatch_effective_binding($1, $2, $3))`,
    [userId, threadId, eventType],
  );
  return rows[0] ?? null;
}

export type BindingCandidate = BindingRow & { stamp: string };

/** Every binding that could answer an event (enabled, runner available), up to `limit`; `stamp` as dispatch_effective_binding gives it. */
export async function listBindingCandidates({ limit }: { limit: number }): Promise<BindingCandidate[]> {
  const { rows } = await getPool().query<BindingCandidate>(
    `select ${bindingColumns("b")}, b.updated_at::text as stamp from agent_bindings b join agent_runners r on r.id = b.runner_id
     where b.enabled and r.available limit $1`,
    [limit],
  );
  return rows;
}

/** A run and its frozen authorization, with the milliseconds left before its deadline by the database's clock. */
export type EndpointRunRow = Pick<RunModel, "id" | "userId" | "threadId" | "runner" | "status" | "bindingId" | "eventId" | "apiKeyId"> & {
  authorization: RunAuthorization;
  remainingMs: number;
};

/** The run `runId` (a uuid) if its authorization names this endpoint, whatever its status. */
export async function findEndpointRunRow({ runId, endpointId }: { runId: string; endpointId: string }): Promise<EndpointRunRow | null> {
  const { rows } = await getPool().query<EndpointRunRow>(
    `select id, user_id as "userId", thread_id as "threadId", runner, status, binding_id as "bindingId", event_id as "eventId", "authorization",
       api_key_id as "apiKeyId", (extract(epoch from (deadline_at - now())) * 1000)::float8 as "remainingMs"
     from runs where id = $1::uuid and "authorization"->>'endpoint_id' = $2`,
    [runId, endpointId],
  );
  return rows[0] ?? null;
}

/**
 * Full-text relevance of each text to a query, in the texts' order: PostgreSQL's cover density
 * ranking (ts_rank_cd) of an any-term query over each text, as the knowledge ranker scores chunks.
 * `texts` and `query` come prepared (server/knowledge/search-text.ts): CJK runs as bigrams, the
 * query as to_tsquery text.
 */
export async function rankTextsFullText({ query, texts }: { query: string; texts: string[] }): Promise<number[]> {
  const { rows } = await getPool().query<{ score: number }>({
    name: "dispatch-rank-texts",
    text: `select ts_rank_cd(to_tsvector('english', d.doc) || to_tsvector('simple', d.doc), to_tsquery('english', $1) || to_tsquery('simple', $1), 32)::float8 as score
      from unnest($2::text[]) with ordinality as d(doc, ord) order by d.ord`,
    values: [query, texts],
  });
  return rows.map((r) => r.score);
}

/**
 * Takes one token from the bucket `key` (capacity and refill: `ratePerMinute` a minute, by the
 * database's clock, so every instance shares it): `allowed` false, and nothing taken, when less
 * than one token is left; `tokens` is what remains.
 */
export async function takeRateToken({ key, ratePerMinute }: { key: string; ratePerMinute: number }): Promise<{ allowed: boolean; tokens: number }> {
  const refill = `least($2::float8, b.tokens + extract(epoch from clock_timestamp() - b.refreshed_at)::float8 * $2::float8 / 60)`;
  const { rows } = await getPool().query<{ allowed: boolean; tokens: number }>({
    name: "dispatch-take-rate-token",
    text: `insert into runner_api_rate_buckets as b (key, tokens, allowed, refreshed_at) values ($1, $2::float8 - 1, true, clock_timestamp())
      on conflict (key) do update set
        tokens = case when ${refill} >= 1 then ${refill} - 1 else ${refill} end,
        allowed = ${refill} >= 1,
        refreshed_at = clock_timestamp()
      returning allowed, tokens`,
    values: [key, ratePerMinute],
  });
  return rows[0]!;
}

/** Forgets buckets idle this long (full again by then, so forgetting them changes nothing). */
export async function deleteIdleRateBuckets({ idleSeconds }: { idleSeconds: number }): Promise<void> {
  await getPool().query(`delete from runner_api_rate_buckets where refreshed_at < clock_timestamp() - make_interval(secs => $1)`, [idleSeconds]);
}

/** The client's answers to frontend tool calls that a run brought (stored when it was accepted), in order. */
export async function findRunClientToolResults({ runId }: { runId: string }): Promise<{ toolCallId: string; toolName: string; content: string }[]> {
  const { rows } = await getPool().query<{ toolCallId: string; toolName: string; content: string }>(
    `select metadata->>'tool_call_id' as "toolCallId", metadata->>'tool_name' as "toolName", content
     from messages where run_id = $1 and role = 'tool' and metadata->>'stage' = 'client_tool' order by seq`,
    [runId],
  );
  return rows;
}

/** Leaves a host tool call for the instance that executes its run; answers the row's id. */
export async function insertToolHandOver({ runId, call }: { runId: string; call: unknown }): Promise<string> {
  const { rows } = await getPool().query<{ id: string }>(`insert into runner_tool_hand_overs (run_id, call) values ($1, $2) returning id::text`, [runId, JSON.stringify(call)]);
  return rows[0]!.id;
}

/** Takes (deletes) a run's handed-over calls, oldest first. */
export async function takeToolHandOvers({ runId }: { runId: string }): Promise<{ id: string; call: unknown }[]> {
  const { rows } = await getPool().query<{ id: string; call: unknown }>(
    `with taken as (delete from runner_tool_hand_overs where run_id = $1 returning id, call) select id::text, call from taken order by id`,
    [runId],
  );
  return rows;
}

