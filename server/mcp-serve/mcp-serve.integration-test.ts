import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fact } from "@/server/approvals/test-support";
import { setUserApprovalPolicy } from "@/server/approvals/repository";
import { getPool } from "@/server/db";
import { createApiKey } from "@/server/accounts/service/api-keys";
import { PROJECT_CLI_ACTIONS } from "@/server/tools/project-cli/actions";
import { setUserHiddenSkills } from "@/server/tools/repository/skills";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";

// Dispatch as an MCP server, over real HTTP against the production server: the official SDK's
// Client with its Streamable HTTP transport and an API key, as a desktop assistant or IDE connects.

type User = Awaited<ReturnType<typeof createTestUser>>;

const mcpUrl = () => new URL("/api/v1/mcp", baseUrl());
const open: Client[] = [];

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: "dispatch-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: bearer(apiKey) } }));
  open.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
const errorOf = (result: CallToolResult) => (JSON.parse(text(result)) as { error: { code: string; message: string; issues?: { path: string }[] } }).error;

let alice: User;
let bob: User;
let aliceAuto: string;
let bobAuto: string;

beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  // Keys that approve by themselves, as automation's would.
  const keys = await Promise.all([alice, bob].map((u) => createApiKey({ userId: u.id, name: "mcp", autoApprove: true })));
  aliceAuto = keys[0]!.key;
  bobAuto = keys[1]!.key;
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

describe("Dispatch as an MCP server", () => {
  it("lists every project_cli action of the registry as a tool, with its JSON Schema and its hints", async () => {
    const { tools } = await (await connect(alice.apiKey)).listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(PROJECT_CLI_ACTIONS.map((a) => `${a.module}_${a.method}`).sort());
    const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
    expect(byName.get("memory_read")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    // The user's own memory reaches nobody; an event with attendees may.
    expect(byName.get("memory_update")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(byName.get("calendar_create")!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    // The method's zod schema as JSON Schema, closed as the agent's: here a union of two object shapes.
    expect(byName.get("memory_read")!.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
    expect(byName.get("memory_update")!.inputSchema).toMatchObject({
      type: "object",
      anyOf: [{ type: "object", required: ["facts"], additionalProperties: false }, { type: "object", required: ["key", "value"], additionalProperties: false }],
    });
    expect(byName.get("memory_update")!.description).toMatch(/\w/);
  });

  it("leaves out the skills the user hid, as the agent's prompt does", async () => {
    const carol = await createTestUser();
    await setUserHiddenSkills({ userId: carol.id, hidden: ["contacts"] });
    const names = (await (await connect(carol.apiKey)).listTools()).tools.map((t) => t.name);
    expect(names).toContain("memory_read");
    expect(names).not.toContain("contacts_read");
  });

  it("calls a write once, records it as a tool effect, and reads it back", async () => {
    const client = await connect(aliceAuto);
    const key = `mcp_${Date.now()}`;
    const written = await call(client, "memory_update", { facts: [{ key, value: "tea" }] });
    expect(written.isError).toBeFalsy();
    expect(await fact(alice.id, key)).toBe("tea");
    const read = await call(client, "memory_read", {});
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain(key);
    expect(read.structuredContent).toMatchObject({ facts: expect.arrayContaining([expect.objectContaining({ key, value: "tea" })]) });
    const { rows } = await getPool().query<{ runId: string; action: string }>(`select run_id as "runId", action from tool_effects where user_id = $1`, [alice.id]);
    expect(rows).toEqual([{ runId: expect.stringMatching(/^mcp:/), action: "memory.update" }]);
  });

  it("enforces the method's schema: bad input is a tool error naming the field, and nothing runs", async () => {
    const client = await connect(aliceAuto);
    const result = await call(client, "memory_update", { facts: [{ key: 7, value: "x" }], colour: "red" });
    expect(result.isError).toBe(true);
    const error = errorOf(result);
    expect(error.code).toBe("INVALID_ACTION_INPUT");
    expect(error.issues!.map((i) => i.path)).toEqual(expect.arrayContaining(["facts.0.key"]));
    expect(text(result)).toContain("colour");
    await expect(client.callTool({ name: "memory_forget_all", arguments: {} })).rejects.toThrow(/no tool memory_forget_all/);
  });

  it("follows the owner's approval policy: a write it reserves for a person is refused, not run", async () => {
    const client = await connect(bob.apiKey);
    const key = `asked_${Date.now()}`;
    // The default policy, always: every write asks.
    const refused = await call(client, "memory_update", { facts: [{ key, value: "no" }] });
    expect(refused.isError).toBe(true);
    expect(errorOf(refused)).toMatchObject({ code: "APPROVAL_REQUIRED", message: expect.stringContaining("approval") });
    expect(await fact(bob.id, key)).toBeNull();
    // Under `others`, a change of the user's own memory does not ask; an event with an attendee still does.
    await setUserApprovalPolicy({ userId: bob.id, policy: "others" });
    expect((await call(client, "memory_update", { facts: [{ key, value: "yes" }] })).isError).toBeFalsy();
    expect(await fact(bob.id, key)).toBe("yes");
    const invite = await call(client, "calendar_create", { title: "Sync", start_at: "2026-04-21T10:00:00Z", duration_minutes: 30, attendees: ["someone@example.com"] });
    expect(errorOf(invite).code).toBe("APPROVAL_REQUIRED");
  });

  it("keeps another user's data unreachable", async () => {
    const alices = await connect(aliceAuto);
    const bobs = await connect(bobAuto);
    const secret = `private_${Date.now()}`;
    expect((await call(alices, "memory_update", { facts: [{ key: secret, value: "alice only" }] })).isError).toBeFalsy();
    const created = await call(alices, "calendar_create", { title: "Alice's dentist", start_at: "2026-05-01T09:00:00Z", duration_minutes: 30 });
    expect(created.isError).toBeFalsy();
    const eventId = (created.structuredContent as { event: { id: string } }).event.id;

    expect(text(await call(bobs, "memory_read", {}))).not.toContain(secret);
    const range = { mode: "range", start_at: "2026-05-01T00:00:00Z", end_at: "2026-05-02T00:00:00Z" };
    expect(text(await call(bobs, "calendar_read", range))).not.toContain("dentist");
    const deleted = await call(bobs, "calendar_delete", { event_id: eventId });
    expect(errorOf(deleted).code).toBe("EVENT_NOT_FOUND");
    expect(text(await call(alices, "calendar_read", range))).toContain("dentist");
  });

  it("answers 401 without a valid API key, and 405 to the stream and session a stateless server lacks", async () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } } };
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(), { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(initialize) });
    expect((await post({})).status).toBe(401);
    expect((await post(bearer("dsp_not_a_key"))).status).toBe(401);
    expect((await post(bearer(alice.apiKey))).status).toBe(200);
    await expect(connect("dsp_not_a_key")).rejects.toThrow();
    expect((await fetch(mcpUrl(), { headers: { accept: "text/event-stream", ...bearer(alice.apiKey) } })).status).toBe(405);
    expect((await fetch(mcpUrl(), { method: "DELETE", headers: bearer(alice.apiKey) })).status).toBe(405);
  });
});
