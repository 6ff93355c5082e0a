// Test fixtures for the host API: runner endpoints, bindings and live run sessions created
// straight in the database (no runner process), and a caller for the real HTTP endpoint.
import { randomBytes, randomUUID } from "node:crypto";
import { inject } from "vitest";
import { getPool } from "@/server/db";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { NDJSON_CONTENT_TYPE, type HostApiActionName } from "@/server/protocols/runner/host-api";
import { permissionsSchema, type AgentRunnerPermissions } from "@/server/protocols/runner/manifest";
import { acceptRun } from "@/server/runs/accept";
import { PROJECT_CLI_TOOL_NAME } from "@/server/tools/project-cli/tool";
import { baseUrl } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { entryEventId } from "../entry-events";
import { computeAuthorization, type BindingPolicy, type RunAuthorization } from "../policy";
import { insertBinding, upsertEndpoint } from "../repository/runners";
import { hashRunnerSecret, sealRunnerSecret } from "../secrets";

export const FULL_PERMISSIONS: AgentRunnerPermissions = permissionsSchema.parse({
  models: ["invoke", "stream", "rerank"],
  tools: ["detail", "call"],
  knowledge_bases: ["list", "retrieve"],
  history: ["page", "search"],
  events: ["get", "page"],
  artifacts: ["metadata", "read"],
  storage: ["plugin", "workspace", "binding"],
  platform_api: ["message.edit"],
});

export type TestEndpoint = { id: string; secret: string; runnerId: string };

/** An endpoint with one runner, as discovery would have left it. */
export async function createEndpoint(): Promise<TestEndpoint> {
  const secret = `rs_${randomBytes(24).toString("base64url")}`;
  const endpoint = (await upsertEndpoint({ baseUrl: `http://runner-${randomUUID()}.test`, secretSealed: sealRunnerSecret(secret), secretHash: hashRunnerSecret(secret) }))!;
  const runnerId = `plugin:test/${endpoint.id.slice(0, 8)}/default`;
  await getPool().query(`insert into agent_runners (id, endpoint_id, name, manifest, updated_at) values ($1, $2, 'default', '{}', now())`, [runnerId, endpoint.id]);
  return { id: endpoint.id, secret, runnerId };
}

export async function createBinding(opts: { endpoint: TestEndpoint; userId: string; policy?: BindingPolicy }): Promise<string> {
  const binding = await insertBinding({
    runnerId: opts.endpoint.runnerId,
    scope: "user",
    userId: opts.userId,
    threadId: null,
    eventTypes: ["message.received"],
    config: {},
    policy: opts.policy ?? {},
  });
  return binding.id;
}

export type RunSessionFixture = { id: string; threadId: string; eventId: string; bindingId: string | null; authorization: RunAuthorization };

/**
 * A run handed to `endpoint`'s runner and running now: accepted like any run (thread, user
 * message, entry event), then marked running with the frozen authorization.
 */
export async function startRunSession(opts: {
  userId: string;
  endpoint: TestEndpoint;
  bindingId?: string | null;
  permissions?: AgentRunnerPermissions;
  policy?: BindingPolicy;
  knowledgeBaseIds?: string[];
  threadId?: string;
  text?: string;
  /** Overrides applied to the computed authorization (limits, for example). */
  limits?: Partial<RunAuthorization["limits"]>;
}): Promise<RunSessionFixture> {
  const raw = runInput(opts.threadId ? { threadId: opts.threadId } : {}, opts.text ?? "hello there");
  const parsed = parseRunAgentInput(JSON.stringify(raw));
  if (!parsed.ok) throw new Error(parsed.message);
  const threadId = parsed.input.threadId;
  const messageId = parsed.input.messages[0]!.id;
  const eventId = entryEventId({ threadId, messageId });
  const bindingId = opts.bindingId === undefined ? null : opts.bindingId;
  const base = computeAuthorization({
    runnerId: opts.endpoint.runnerId,
    endpointId: opts.endpoint.id,
    bindingId,
    conversationId: threadId,
    actorId: opts.userId,
    eventId,
    permissions: opts.permissions ?? FULL_PERMISSIONS,
    policy: opts.policy ?? { platform_api: { actions: ["message.edit"] } },
    available: { modelIds: [inject("llmModel")], toolNames: [PROJECT_CLI_TOOL_NAME], knowledgeBaseIds: opts.knowledgeBaseIds ?? [] },
  });
  const authorization = { ...base, limits: { ...base.limits, ...opts.limits } };
  const { run } = await acceptRun({
    userId: opts.userId,
    input: parsed.input,
    protocol: "ag-ui",
    runner: opts.endpoint.runnerId,
    entry: { id: eventId, eventType: "message.received", source: "webui", sourceEventType: "RunAgentInput", data: { message_id: messageId }, rawRef: null },
    bindingId,
    authorization,
  });
  // No executor renews this run's heartbeat: one far ahead keeps recovery from closing it mid-test.
  await getPool().query(`update runs set status = 'running', started_at = now(), heartbeat_at = now() + interval '1 hour' where id = $1`, [run.id]);
  return { id: run.id, threadId, eventId, bindingId, authorization };
}

export async function endRun(id: string, status: "completed" | "failed" | "cancelled" = "completed"): Promise<void> {
  await getPool().query(`update runs set status = $2, finished_at = now() where id = $1`, [id, status]);
}

export async function expireRun(id: string): Promise<void> {
  await getPool().query(`update runs set deadline_at = now() - interval '1 second' where id = $1`, [id]);
}

export type HostAnswer = { status: number; contentType: string; body: { ok: boolean; data?: unknown; error?: { code: string; message: string; retryable: boolean; details: Record<string, unknown> } }; text: string };

/** POSTs to the host API over HTTP and reads the whole answer (NDJSON answers as text). */
export async function callHost(secret: string | null, action: HostApiActionName | string, body: unknown, init: RequestInit = {}): Promise<HostAnswer> {
  const res = await fetch(`${baseUrl()}/api/v1/runner-api/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret !== null ? { authorization: `Bearer ${secret}` } : {}), ...(init.headers as Record<string, string>) },
    body: typeof body === "string" || body instanceof ReadableStream ? body : JSON.stringify(body),
    ...init,
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return { status: res.status, contentType, body: contentType.startsWith(NDJSON_CONTENT_TYPE) ? { ok: true } : JSON.parse(text), text };
}

/** The lines of an NDJSON answer. */
export function ndjsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type AuditRow = { action: string; result: string; resource: string | null; scope: string | null; runnerId: string | null; runRef: string | null; latencyMs: number };

/** Waits until the run's audit rows satisfy `until` (refusals are written in the background). */
export async function waitForAuditRows(
  runId: string | null,
  opts: { runRef?: string; count?: number; until?: (rows: AuditRow[]) => boolean; timeoutMs?: number },
): Promise<AuditRow[]> {
  const until = opts.until ?? ((rows: AuditRow[]) => rows.length >= (opts.count ?? 1));
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const { rows } = await getPool().query<AuditRow>(
      `select action, result, resource, scope, runner_id as "runnerId", run_ref as "runRef", latency_ms as "latencyMs" from runner_api_calls
       where ${runId ? "run_id = $1" : "run_id is null and run_ref = $1"} order by id`,
      [runId ?? opts.runRef],
    );
    if (until(rows)) return rows;
    if (Date.now() > deadline) throw new Error(`the audit rows never matched: ${JSON.stringify(rows)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
