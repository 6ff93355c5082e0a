// `npm run admin -- <command> [flags]`: user and API key administration from the shell.
import path from "node:path";
import { parseArgs } from "node:util";
import { closeAppDb, log, prepareDatabase, resolveAuthSecret } from "./lib/bootstrap";
import { env } from "../server/env";

const usage = `Usage: npm run admin -- <command> [flags]

Commands:
  user:create   --email E --password P [--name N] [--admin]
  user:reset-password --email E             sets a one-time password, printed as the last line;
                                            the user chooses their own at their next sign-in
  user:deactivate --email E                 the user can no longer sign in or use their API keys;
                                            refused for the last active admin
  user:reactivate --email E                 restores their sign-in and API keys
                                            (the three user: commands also take the email alone)
  user:approval-policy --email E --policy always|others|never
                                            which of the agent's writes wait for the user's approval
                                            (docs/approvals.md); their next runs follow it
  apikey:create --email E [--name N] [--self-approve]
                                            prints the new key as the last line; --self-approve:
                                            runs the key starts make their writes without asking
  apikey:update --id ID --self-approve | --no-self-approve
  apikey:list   --email E
  apikey:revoke --id ID
  runner:register --url URL --secret S      discovers the endpoint's runners, prints their ids one per line
  runner:refresh  --id ENDPOINT_ID          discovers again (after the runner changed)
  agent:register --name N --url URL [--header "Name: value"]... [--timeout S] [--stall S]
                registers an agent that serves AG-UI at URL (docs/agents.md) as the runner
                plugin:ag-ui/N/agent, printed as the last line; --timeout: seconds it may take
                to answer (30), --stall: seconds it may go without an event (120); the headers
                are sealed and never shown again
  runner:list
  binding:create  --runner ID [--email E | --thread THREAD_ID] [--config JSON] [--policy JSON]
                  binds the runner for that user's (or thread's) runs, everyone's without either;
                  prints the binding id as the last line
  binding:delete  --id BINDING_ID
  mcp:register  --name N --url URL [--token T] [--header "Name: value"]... [--timeout MS]
                [--oauth-client-id ID [--oauth-scope S] [--oauth-issuer URL]]
                registers an MCP server (Streamable HTTP) as the project_cli module N and
                prints its tools; the token, headers and OAuth client secret (read from the
                environment's MCP_OAUTH_CLIENT_SECRET, never a flag) are sealed and never shown again
  mcp:list                                  servers, their tools and grants
  mcp:refresh   --name N                    reads tools/list again
  mcp:grant     --name N (--email E | --binding BINDING_ID) [--tools a,b]
                lets that user (or that binding's runs) use the server (only those tools)
  mcp:revoke    --id GRANT_ID
  mcp:remove    --name N
  webhook:create --email E --url URL [--binding BINDING_ID] [--events run.completed,run.failed,...]
                registers a webhook endpoint owned by that user, for their runs (every run of
                the binding with --binding); prints its signing secret as the last line
  webhook:list                              every endpoint, its state and any notice
  webhook:enable --id ENDPOINT_ID           switches an endpoint disabled for failing on again`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

// Every flag any command takes; each command checks the ones it needs.
const FLAG_OPTIONS = {
  email: { type: "string" },
  password: { type: "string" },
  name: { type: "string" },
  id: { type: "string" },
  url: { type: "string" },
  secret: { type: "string" },
  runner: { type: "string" },
  thread: { type: "string" },
  config: { type: "string" },
  policy: { type: "string" },
  token: { type: "string" },
  "oauth-client-id": { type: "string" },
  "oauth-scope": { type: "string" },
  "oauth-issuer": { type: "string" },
  header: { type: "string", multiple: true },
  timeout: { type: "string" },
  stall: { type: "string" },
  binding: { type: "string" },
  tools: { type: "string" },
  events: { type: "string" },
  admin: { type: "boolean", default: false },
  "self-approve": { type: "boolean" },
} as const;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === "--help" || command === "help") {
    console.log(usage);
    return;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: FLAG_OPTIONS,
    allowNegative: true,
    strict: true,
  });
  // `user:deactivate someone@example.com` reads as it should: the user commands take the email alone too.
  if (positionals.length > (command.startsWith("user:") && values.email === undefined ? 1 : 0)) fail(`Unexpected argument: ${positionals.join(" ")}\n\n${usage}`);
  values.email ??= command.startsWith("user:") ? positionals[0] : undefined;
  const need = (key: "email" | "password" | "id" | "url" | "secret" | "runner"): string => values[key] ?? fail(`${command} needs --${key}\n\n${usage}`);
  const json = (key: "config" | "policy"): Record<string, unknown> | undefined => {
    if (values[key] === undefined) return undefined;
    try {
      return JSON.parse(values[key]) as Record<string, unknown>;
    } catch {
      return fail(`--${key} must be a JSON object, for example --${key} '{"tone":"brief"}'`);
    }
  };

  const selfApprove = values["self-approve"];
  if (command === "apikey:update" && selfApprove === undefined) fail(`apikey:update needs --self-approve or --no-self-approve\n\n${usage}`);
  // Validate the command before opening the database, so a typo answers at once.
  const commands = ["user:create", "user:reset-password", "user:deactivate", "user:reactivate", "user:approval-policy", "apikey:create", "apikey:update", "apikey:list", "apikey:revoke", "runner:register", "runner:refresh", "agent:register", "runner:list", "binding:create", "binding:delete", ...MCP_COMMANDS, ...WEBHOOK_COMMANDS];
  if (!commands.includes(command)) fail(`Unknown command: ${command}\n\n${usage}`);

  const db = await prepareDatabase();
  // The same secret the server uses (generated under DATA_DIR on first start), so runner
  // secrets sealed here can be read by the server. Said aloud: against a deployment's database,
  // a runner secret sealed with another key cannot be opened there (set its AUTH_SECRET here).
  const fromEnvironment = env.AUTH_SECRET !== undefined;
  env.AUTH_SECRET = resolveAuthSecret();
  log(
    fromEnvironment
      ? "Using AUTH_SECRET from the environment"
      : `Using the AUTH_SECRET kept in ${path.join(env.DATA_DIR, "auth-secret")} (local servers' one; for a deployment, set its AUTH_SECRET)`,
  );
  try {
    const { AppError } = await import("../server/kernel/errors");
    try {
      if (command.startsWith("mcp:")) {
        await mcpCommand(command, values);
      } else if (command.startsWith("webhook:")) {
        await webhookCommand(command, values);
      } else if (command === "agent:register") {
        await agentCommand(values);
      } else if (command.startsWith("runner:") || command.startsWith("binding:")) {
        await runnerCommand(command, { need, json, email: values.email, thread: values.thread });
      } else {
        await accountCommand(command, { need, values, selfApprove });
      }
    } catch (err) {
      if (err instanceof AppError) fail(err.message);
      const { ZodError } = await import("zod");
      if (err instanceof ZodError) fail(err.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("\n"));
      throw err;
    }
  } finally {
    await closeAppDb();
    await db.stop();
  }
}

type AccountFlags = {
  need: (key: "email" | "password" | "id") => string;
  values: { name?: string; admin?: boolean; policy?: string };
  selfApprove: boolean | undefined;
};

/** user:* and apikey:* commands, through the services the console uses. */
async function accountCommand(command: string, { need, values, selfApprove }: AccountFlags): Promise<void> {
  if (command === "user:create") {
    const { createUser } = await import("../server/accounts/service/users");
    const user = await createUser({ email: need("email"), password: need("password"), name: values.name, role: values.admin ? "admin" : "user" });
    console.log(`Created ${user.role} ${user.email} (${user.id})`);
  } else if (command === "user:reset-password") {
    const { resetUserPasswordByEmail } = await import("../server/accounts/service/users");
    const { user, oneTimePassword } = await resetUserPasswordByEmail({ email: need("email") });
    console.log(`Set a one-time password for ${user.email}; they choose their own at their next sign-in. It is shown only once:`);
    console.log(oneTimePassword);
  } else if (command === "user:deactivate" || command === "user:reactivate") {
    const { setUserActiveByEmail } = await import("../server/accounts/service/users");
    const active = command === "user:reactivate";
    const user = await setUserActiveByEmail({ email: need("email"), active });
    console.log(active ? `Reactivated ${user.email}: they can sign in and use their API keys again` : `Deactivated ${user.email}: they can no longer sign in or use their API keys; their threads and runs stay`);
  } else if (command === "user:approval-policy") {
    const { setApprovalPolicyByEmail } = await import("../server/approvals/service");
    const policy = await setApprovalPolicyByEmail({ email: need("email"), policy: values.policy ?? fail(`${command} needs --policy always|others|never\n\n${usage}`) });
    console.log(`Approval policy of ${need("email")} is now ${policy}; their next runs follow it`);
  } else if (command === "apikey:create") {
    const { createApiKeyForEmail } = await import("../server/accounts/service/api-keys");
    const { key, record } = await createApiKeyForEmail({ email: need("email"), name: values.name, autoApprove: selfApprove ?? false });
    console.log(`Created API key ${record.id} (${record.prefix}…) for ${need("email")}${record.autoApprove ? ", approving its own changes" : ""}. It is shown only once:`);
    console.log(key);
  } else if (command === "apikey:update") {
    const { updateApiKeyAutoApprove } = await import("../server/accounts/service/api-keys");
    const key = await updateApiKeyAutoApprove({ id: need("id"), autoApprove: selfApprove! });
    console.log(`API key ${key.id} (${key.prefix}…) ${key.autoApprove ? "now approves its own changes" : "now asks for approval as its user's policy says"}`);
  } else if (command === "apikey:list") {
    const { findUserByEmail } = await import("../server/accounts/repository/users");
    const { listApiKeys } = await import("../server/accounts/service/api-keys");
    const user = (await findUserByEmail({ email: need("email").toLowerCase() })) ?? fail(`No user with email ${need("email")}`);
    for (const k of await listApiKeys({ userId: user.id })) {
      console.log(`${k.id}  ${k.prefix}…  ${k.name}  ${k.revokedAt ? "revoked" : "active"}${k.autoApprove ? "  self-approving" : ""}  created ${k.createdAt.toISOString()}`);
    }
  } else if (command === "apikey:revoke") {
    const { revokeApiKey } = await import("../server/accounts/service/api-keys");
    const key = await revokeApiKey({ id: need("id") });
    console.log(`Revoked API key ${key.id} (${key.prefix}…)`);
  }
}

type Flags = {
  need: (key: "id" | "url" | "secret" | "runner" | "email") => string;
  json: (key: "config" | "policy") => Record<string, unknown> | undefined;
  email?: string;
  thread?: string;
};

async function runnerCommand(command: string, { need, json, email, thread }: Flags): Promise<void> {
  const runners = await import("../server/runner-host/service");
  const printDiscovery = (d: Awaited<ReturnType<typeof runners.registerRunner>>) => {
    console.error(`Endpoint ${d.endpointId} (${d.baseUrl}): ${d.status}${d.lastError ? ` - ${d.lastError}` : ""}`);
    for (const w of d.warnings) console.error(`warning: ${w.runner_id ?? "(no id)"}: ${w.reason}`);
    for (const id of d.runnerIds) console.log(id);
  };
  if (command === "runner:register") {
    const d = await runners.registerRunner({ url: need("url"), secret: need("secret") });
    printDiscovery(d);
    if (d.runnerIds.length === 0) fail("The endpoint lists no valid runner; see the warnings above");
  } else if (command === "runner:refresh") {
    printDiscovery(await runners.refreshRunner({ endpointId: need("id") }));
  } else if (command === "runner:list") {
    const o = await runners.runnersOverview();
    for (const r of o.runners) {
      const e = o.endpoints.find((x) => x.id === r.endpointId);
      console.log(`${r.id}  ${r.builtin ? "built-in" : (e?.baseUrl ?? "?")}  ${r.available ? (e?.status ?? "ok") : "unavailable"}`);
    }
    for (const b of o.bindings) {
      console.log(`binding ${b.id}  ${b.runnerId}  ${b.scope}${b.userEmail ? ` ${b.userEmail}` : ""}${b.threadId ? ` thread ${b.threadId}` : ""}  ${b.enabled ? "enabled" : "disabled"}`);
    }
  } else if (command === "binding:create") {
    const b = await runners.bindRunner({ runnerId: need("runner"), email, threadId: thread, config: json("config"), policy: json("policy") });
    console.error(`Bound ${b.runnerId} for ${b.scope === "default" ? "everyone" : b.scope === "user" ? need("email") : `thread ${b.threadId}`}`);
    console.log(b.id);
  } else {
    await runners.removeRunnerBinding({ id: need("id") });
    console.log(`Deleted binding ${need("id")}`);
  }
}

/** agent:register: an AG-UI agent as a runner, through the service the console uses. */
async function agentCommand(flags: { name?: string; url?: string; header?: string[]; timeout?: string; stall?: string }): Promise<void> {
  const runners = await import("../server/runner-host/service");
  const headers: Record<string, string> = {};
  for (const h of flags.header ?? []) {
    const at = h.indexOf(":");
    if (at <= 0) fail(`--header must look like "Name: value", got "${h}"`);
    headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
  }
  const seconds = (v: string | undefined, flag: string) => (v === undefined ? undefined : Number.isInteger(Number(v)) ? Number(v) : fail(`--${flag} must be a whole number of seconds`));
  const a = await runners.registerAgent({
    name: flags.name ?? fail("agent:register needs --name"),
    url: flags.url ?? fail("agent:register needs --url"),
    headers,
    connectSeconds: seconds(flags.timeout, "timeout"),
    stallSeconds: seconds(flags.stall, "stall"),
  });
  console.error(`Agent ${a.url} (endpoint ${a.endpointId}): answers within ${a.options.connect_seconds} s, events at most ${a.options.stall_seconds} s apart`);
  console.log(a.runnerId);
}

const WEBHOOK_COMMANDS = ["webhook:create", "webhook:list", "webhook:enable"];

/** webhook:* commands (docs/webhooks.md), through the service the console uses. */
async function webhookCommand(command: string, flags: { email?: string; url?: string; binding?: string; events?: string; id?: string }): Promise<void> {
  const webhooks = await import("../server/webhooks/service");
  const { CreateWebhookEndpointSchema } = await import("../server/webhooks/schemas");
  const need = (key: "email" | "url" | "id"): string => flags[key] ?? fail(`${command} needs --${key}\n\n${usage}`);
  if (command === "webhook:create") {
    const input = CreateWebhookEndpointSchema.parse({ url: need("url"), ...(flags.events ? { events: flags.events.split(",").map((e) => e.trim()) } : {}) });
    const e = await webhooks.createWebhookEndpointForEmail({ ...input, email: need("email"), bindingId: flags.binding });
    console.error(`Registered webhook endpoint ${e.id} for ${e.bindingId ? `binding ${e.bindingId}` : need("email")}: ${e.events.join(", ")}. Its secret is shown only once:`);
    console.log(e.secret);
  } else if (command === "webhook:list") {
    for (const e of await webhooks.listEveryWebhookEndpoint()) {
      console.log(`${e.id}  ${e.url}  ${e.bindingId ? `binding ${e.bindingId}` : `user ${e.userId}`}  ${e.enabled ? "enabled" : `disabled: ${e.disabledReason}`}`);
    }
  } else {
    const e = await webhooks.updateWebhookEndpoint({ id: need("id"), userId: null, enabled: true });
    console.log(`Enabled webhook endpoint ${e.id} (${e.url})`);
  }
}

const MCP_COMMANDS = ["mcp:register", "mcp:list", "mcp:refresh", "mcp:grant", "mcp:revoke", "mcp:remove"];

type McpFlags = {
  name?: string;
  url?: string;
  token?: string;
  header?: string[];
  timeout?: string;
  email?: string;
  binding?: string;
  tools?: string;
  id?: string;
  "oauth-client-id"?: string;
  "oauth-scope"?: string;
  "oauth-issuer"?: string;
};

/** OAuth client credentials from the flags, the secret from the environment (a flag would show in `ps`). */
function oauthFlags(flags: McpFlags) {
  const clientId = flags["oauth-client-id"];
  if (clientId === undefined) {
    // A scope or issuer alone would be dropped without a word: say what they need.
    if (flags["oauth-scope"] !== undefined || flags["oauth-issuer"] !== undefined) fail("--oauth-scope and --oauth-issuer go with --oauth-client-id");
    return undefined;
  }
  const clientSecret = process.env.MCP_OAUTH_CLIENT_SECRET ?? fail("--oauth-client-id needs the client secret in the environment variable MCP_OAUTH_CLIENT_SECRET");
  return { clientId, clientSecret, scope: flags["oauth-scope"], issuer: flags["oauth-issuer"] };
}

async function mcpCommand(command: string, flags: McpFlags): Promise<void> {
  const mcp = await import("../server/tools/service/mcp-servers");
  const need = (key: "name" | "url" | "id"): string => flags[key] ?? fail(`${command} needs --${key}\n\n${usage}`);
  const printTools = (s: Awaited<ReturnType<typeof mcp.registerMcpServer>>) => {
    console.error(`MCP server ${s.name} (${s.url}): ${s.tools.length} tools`);
    for (const t of s.tools) console.log(`${s.name}.${t.name}  ${t.kind}${t.annotations ? `  ${JSON.stringify(t.annotations)}` : ""}`);
  };
  if (command === "mcp:register") {
    const headers = Object.fromEntries(
      (flags.header ?? []).map((h) => {
        const at = h.indexOf(":");
        return at > 0 ? [h.slice(0, at).trim(), h.slice(at + 1).trim()] : fail(`--header must read "Name: value"`);
      }),
    );
    const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout);
    printTools(await mcp.registerMcpServer({ name: need("name"), url: need("url"), bearerToken: flags.token, headers, oauth: oauthFlags(flags), timeoutMs }));
  } else if (command === "mcp:refresh") {
    printTools(await mcp.refreshMcpServer({ name: need("name") }));
  } else if (command === "mcp:list") {
    const { servers, grants } = await mcp.listMcpServerViews();
    for (const s of servers) {
      console.log(`${s.name}  ${s.url}  ${s.hasAuth ? "auth" : "no auth"}  tools: ${s.tools.map((t) => `${t.name} (${t.kind})`).join(", ")}`);
      for (const g of grants.filter((x) => x.serverId === s.id)) {
        console.log(`  grant ${g.id}  ${g.userEmail ? `user ${g.userEmail}` : `binding ${g.bindingId}`}  ${g.tools.length > 0 ? g.tools.join(",") : "all tools"}`);
      }
    }
  } else if (command === "mcp:grant") {
    const tools = flags.tools?.split(",").map((t) => t.trim()).filter(Boolean);
    const { id } = await mcp.grantMcpServer({ name: need("name"), email: flags.email, bindingId: flags.binding, tools });
    console.error(`Granted ${need("name")} to ${flags.email ?? `binding ${flags.binding}`}`);
    console.log(id);
  } else if (command === "mcp:revoke") {
    await mcp.revokeMcpGrant({ id: need("id") });
    console.log(`Revoked grant ${need("id")}`);
  } else {
    await mcp.removeMcpServer({ name: need("name") });
    console.log(`Removed MCP server ${need("name")} and its grants`);
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
