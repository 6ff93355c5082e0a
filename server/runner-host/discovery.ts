import "server-only";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { logger } from "../logger";
import { mayConnectTo } from "../net/public-address";
import { describeIssues, listRunnersResponseSchema, manifestSchema, type AgentRunnerManifest } from "../protocols/runner/manifest";
import { dropBindingSnapshot } from "./binding-snapshot";
import { findEndpoint, findRunnerOwners, recordDiscovery, upsertEndpoint, type EndpointRow } from "./repository/runners";
import { hashRunnerSecret, MIN_RUNNER_SECRET_LENGTH, sealRunnerSecret, unsealRunnerSecret } from "./secrets";

// LIST_AGENT_RUNNERS over HTTP: GET {base}/runners. Each manifest is validated on its own, so
// one bad manifest is skipped with a warning and never hides the others.

const DISCOVERY_TIMEOUT_MS = 10_000;
const MAX_DISCOVERY_BYTES = 1_048_576;

export type DiscoveryWarning = { runner_id: string | null; reason: string };
export type DiscoveryOutcome = { endpoint: EndpointRow; runners: AgentRunnerManifest[]; warnings: DiscoveryWarning[] };

/** A runner base URL: http(s), no credentials or query, no trailing slash. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("BAD_REQUEST", `Runner URL "${raw}" is not a valid URL; give the base URL, for example http://127.0.0.1:4100`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("BAD_REQUEST", "Runner URL must use http or https");
  if (url.username || url.password) throw new AppError("BAD_REQUEST", "Runner URL must not contain credentials; pass the secret separately");
  if (url.search || url.hash) throw new AppError("BAD_REQUEST", "Runner URL must not contain a query or fragment");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

async function readCapped(res: Response, cap: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw new Error(`the runners list is larger than ${cap} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

class DiscoveryError extends Error {
  constructor(readonly status: "unreachable" | "invalid", message: string) {
    super(message);
  }
}

// One answer whatever kept the runner from answering (a refused or closed port, no answer in
// time, an address it may not have), so registration cannot be used to map a network.
const unreachable = (baseUrl: string) =>
  new DiscoveryError("unreachable", `GET ${baseUrl}/runners: the runner could not be reached (it must answer on a public address, or its host be listed in RUNNER_ALLOWED_HOSTS)`);

/** Fetches and validates the runners list; throws with a reason a person can act on. */
async function fetchManifests(baseUrl: string, secret: string): Promise<{ manifests: AgentRunnerManifest[]; warnings: DiscoveryWarning[] }> {
  if (!(await mayConnectTo(new URL(baseUrl).hostname, env.RUNNER_ALLOWED_HOSTS))) throw unreachable(baseUrl);
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/runners`, {
      headers: { authorization: `Bearer ${secret}`, accept: "application/json" },
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
      redirect: "error",
    });
  } catch {
    throw unreachable(baseUrl);
  }
  if (res.status === 401 || res.status === 403) throw new DiscoveryError("invalid", `GET ${baseUrl}/runners answered ${res.status}: the runner refused the secret`);
  if (!res.ok) throw new DiscoveryError("unreachable", `GET ${baseUrl}/runners answered HTTP ${res.status}`);
  let body: unknown;
  try {
    body = JSON.parse(await readCapped(res, MAX_DISCOVERY_BYTES));
  } catch (err) {
    throw new DiscoveryError("invalid", `GET ${baseUrl}/runners did not answer JSON (${err instanceof Error ? err.message : "unreadable"})`);
  }
  const list = listRunnersResponseSchema.safeParse(body);
  if (!list.success) throw new DiscoveryError("invalid", `GET ${baseUrl}/runners is not a ListAgentRunnersResponse: ${describeIssues(list.error)}`);

  const manifests: AgentRunnerManifest[] = [];
  const warnings: DiscoveryWarning[] = [];
  const seen = new Set<string>();
  list.data.runners.forEach((raw, index) => {
    const id = typeof (raw as { id?: unknown })?.id === "string" ? ((raw as { id: string }).id) : null;
    const parsed = manifestSchema.safeParse(raw);
    if (!parsed.success) {
      warnings.push({ runner_id: id, reason: `runners[${index}] skipped: ${describeIssues(parsed.error)}` });
      return;
    }
    if (seen.has(parsed.data.id)) {
      warnings.push({ runner_id: parsed.data.id, reason: `runners[${index}] skipped: the id is listed twice` });
      return;
    }
    seen.add(parsed.data.id);
    manifests.push(parsed.data);
  });
  return { manifests, warnings };
}

type Fetched = { manifests: AgentRunnerManifest[]; warnings: DiscoveryWarning[] };

async function discover(endpoint: EndpointRow, fetched: Fetched | DiscoveryError): Promise<DiscoveryOutcome> {
  let { manifests, warnings } = fetched instanceof DiscoveryError ? { manifests: [], warnings: [] } : fetched;
  const status = fetched instanceof DiscoveryError ? fetched.status : "ok";
  const lastError = fetched instanceof DiscoveryError ? fetched.message : null;
  // An id that another endpoint (or the built-in agent) already serves stays with its owner.
  const owners = await findRunnerOwners({ ids: manifests.map((m) => m.id) });
  const taken = new Set(owners.filter((o) => o.endpointId !== endpoint.id).map((o) => o.id));
  if (taken.size > 0) {
    warnings = [...warnings, ...[...taken].map((id) => ({ runner_id: id, reason: "skipped: another runner endpoint (or the built-in agent) already provides this id" }))];
    manifests = manifests.filter((m) => !taken.has(m.id));
  }
  await recordDiscovery({ endpointId: endpoint.id, status, lastError, warnings, manifests });
  dropBindingSnapshot();
  for (const w of warnings) logger.warn({ endpoint: endpoint.baseUrl, runnerId: w.runner_id, reason: w.reason }, "runner manifest skipped");
  if (lastError) logger.warn({ endpoint: endpoint.baseUrl, reason: lastError }, "runner discovery failed");
  const fresh = (await findEndpoint({ id: endpoint.id })) ?? endpoint;
  return { endpoint: fresh, runners: manifests, warnings };
}

/**
 * Registers (or re-keys) a runner endpoint and discovers its runners. An endpoint that cannot
 * be reached is not stored: the admin gets the reason and nothing half-registered remains.
 */
export async function registerRunnerEndpoint(opts: { url: string; secret: string }): Promise<DiscoveryOutcome> {
  const baseUrl = normalizeBaseUrl(opts.url);
  if (opts.secret.length < MIN_RUNNER_SECRET_LENGTH) {
    throw new AppError("BAD_REQUEST", `Runner secret must be at least ${MIN_RUNNER_SECRET_LENGTH} characters long`);
  }
  let fetched: Fetched;
  try {
    fetched = await fetchManifests(baseUrl, opts.secret);
  } catch (err) {
    if (err instanceof DiscoveryError) throw new AppError("BAD_REQUEST", `Could not register the runner: ${err.message}`);
    throw err;
  }
  const endpoint = await upsertEndpoint({ baseUrl, secretSealed: sealRunnerSecret(opts.secret), secretHash: hashRunnerSecret(opts.secret) }).catch(
    (err: unknown) => {
      // The secret is the runner's identity toward the host API, so two endpoints cannot share one.
      if ((err as { code?: string }).code === "23505") throw new AppError("CONFLICT", "Another runner endpoint already uses this secret; give each endpoint its own");
      throw err;
    },
  );
  if (!endpoint) throw new AppError("CONFLICT", `${baseUrl} is registered as an AG-UI agent; remove it first`);
  return discover(endpoint, fetched);
}

/** Discovery on demand: re-reads the endpoint's runners list and records its health. */
export async function refreshRunnerEndpoint({ id }: { id: string }): Promise<DiscoveryOutcome> {
  const endpoint = await findEndpoint({ id });
  if (!endpoint) throw new AppError("NOT_FOUND", `Runner endpoint ${id} not found`);
  if (endpoint.kind === "ag-ui") throw new AppError("BAD_REQUEST", "An AG-UI agent has no runners list to discover; register it again to change it");
  const fetched = await fetchManifests(endpoint.baseUrl, unsealRunnerSecret(endpoint.secretSealed)).catch((err: unknown) => {
    if (err instanceof DiscoveryError) return err;
    throw err;
  });
  return discover(endpoint, fetched);
}
