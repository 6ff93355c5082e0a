import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { env } from "../../env";
import { AppError } from "../../kernel/errors";
import { sealSecret, unsealSecret } from "../../lib/seal";
import { mayConnectTo } from "../../net/public-address";
import { describeIssues, manifestSchema, type AgentRunnerManifest } from "../../protocols/runner/manifest";
import { dropBindingSnapshot } from "../binding-snapshot";
import { RunnerIdTaken, upsertAgUiEndpoint, type EndpointRow } from "../repository/runners";

// An AG-UI agent as a runner (docs/agents.md): an admin names its URL, the headers Dispatch sends
// it (sealed at rest like a runner's secret) and its timeouts. AG-UI has no discovery, so its one
// runner's manifest is made here: `plugin:ag-ui/<name>/agent`, bound like any other runner.

export const AG_UI_RUNNER_AUTHOR = "ag-ui";

/** How long the agent may take to answer the request, and to send its next event once streaming. */
export const agUiAgentOptionsSchema = z.strictObject({
  connect_seconds: z.int().min(1).max(600).default(30),
  stall_seconds: z.int().min(1).max(3600).default(120),
});
export type AgUiAgentOptions = z.infer<typeof agUiAgentOptionsSchema>;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
// Dispatch sets these itself (the body's type, SSE, its length) or they belong to the connection.
const RESERVED_HEADERS = new Set(["content-type", "accept", "content-length", "host", "connection", "transfer-encoding", "upgrade", "keep-alive", "te", "trailer"]);

export const agUiAgentInputSchema = z.strictObject({
  url: z.string().min(1).max(2000),
  name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, "letters, digits, '.', '_' or '-', at most 64, starting with a letter or digit"),
  label: z.string().min(1).max(200).optional(),
  headers: z.record(z.string(), z.string().max(8192)).default({}),
  connectSeconds: z.int().min(1).max(600).optional(),
  stallSeconds: z.int().min(1).max(3600).optional(),
});
export type AgUiAgentInput = z.input<typeof agUiAgentInputSchema>;

/** The agent's URL as given (it may have a path): http(s), no credentials, query or fragment. */
function agentUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("BAD_REQUEST", `Agent URL "${raw}" is not a valid URL; give the URL the agent serves AG-UI at, for example http://127.0.0.1:4111/agent`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("BAD_REQUEST", "Agent URL must use http or https");
  if (url.username || url.password) throw new AppError("BAD_REQUEST", "Agent URL must not contain credentials; pass them as a header");
  if (url.search || url.hash) throw new AppError("BAD_REQUEST", "Agent URL must not contain a query or fragment");
  return `${url.origin}${url.pathname}`;
}

function checkedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new AppError("BAD_REQUEST", `Header name "${name}" is not a valid HTTP header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new AppError("BAD_REQUEST", `Header ${name} is set by Dispatch; it cannot be configured`);
    if (/[\r\n\0]/.test(value)) throw new AppError("BAD_REQUEST", `Header ${name} has a line break or NUL in its value`);
    out[name.toLowerCase()] = value;
  }
  return out;
}

export const sealAgentHeaders = (headers: Record<string, string>): string => sealSecret("ag-ui-agent-headers", JSON.stringify(headers));
export const unsealAgentHeaders = (sealed: string): Record<string, string> => JSON.parse(unsealSecret("ag-ui-agent-headers", sealed)) as Record<string, string>;

/** The endpoint's timeouts, defaults filled (an endpoint row's `options`). */
export const agentOptionsOf = (endpoint: Pick<EndpointRow, "options">): AgUiAgentOptions => agUiAgentOptionsSchema.parse(endpoint.options ?? {});

function agentManifest(name: string, label: string, url: string): AgentRunnerManifest {
  const parsed = manifestSchema.safeParse({
    id: `plugin:${AG_UI_RUNNER_AUTHOR}/${name}/agent`,
    name: "agent",
    label: { en_US: label },
    description: { en_US: `An agent serving AG-UI at ${url}` },
    capabilities: { streaming: true, tool_calling: true, stateful_session: false, self_managed_context: false },
    permissions: {},
    context: { ownership: "host_bootstrap", bootstrap: "current_event" },
    config_schema: [],
    metadata: { kind: "ag-ui" },
  });
  if (!parsed.success) throw new AppError("BAD_REQUEST", `Agent name "${name}" does not make a valid runner id: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Registers (or updates) an AG-UI agent. Its host must pass the same rule as a runner's (a public
 * address, or listed in RUNNER_ALLOWED_HOSTS); the agent is not called here, as AG-UI has no
 * discovery: the first run shows whether it answers.
 */
export async function registerAgUiAgent(raw: AgUiAgentInput): Promise<{ endpoint: EndpointRow; runnerId: string }> {
  const parsed = agUiAgentInputSchema.safeParse(raw);
  if (!parsed.success) throw new AppError("BAD_REQUEST", `Invalid agent: ${describeIssues(parsed.error)}`);
  const input = parsed.data;
  const url = agentUrl(input.url);
  if (!(await mayConnectTo(new URL(url).hostname, env.RUNNER_ALLOWED_HOSTS))) {
    throw new AppError("BAD_REQUEST", `Could not register the agent: ${url} is not on a public address (list its host in RUNNER_ALLOWED_HOSTS to allow it)`);
  }
  const manifest = agentManifest(input.name, input.label ?? input.name, url);
  const options = agUiAgentOptionsSchema.parse({ connect_seconds: input.connectSeconds, stall_seconds: input.stallSeconds });
  let endpoint: EndpointRow | null;
  try {
    endpoint = await upsertAgUiEndpoint({
      baseUrl: url,
      headersSealed: sealAgentHeaders(checkedHeaders(input.headers)),
      // Not a SHA-256 hex digest, so no runner secret presented to the host API ever matches it.
      secretHash: `ag-ui:${createHash("sha256").update(url).digest("hex")}`,
      options,
      manifest,
    });
  } catch (err) {
    if (err instanceof RunnerIdTaken) throw new AppError("CONFLICT", `Runner id ${err.runnerId} belongs to another endpoint; pick another name`);
    throw err;
  }
  if (!endpoint) throw new AppError("CONFLICT", `${url} is registered as a LangBot-style runner endpoint; remove it first`);
  dropBindingSnapshot();
  return { endpoint, runnerId: manifest.id };
}
