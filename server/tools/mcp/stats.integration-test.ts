import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProjectCli } from "@/server/tools/project-cli/tool";
import { createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { startGrantedTicketsServer, type TicketsServer } from "@/test/mcp-servers";

// The console's view of a registered MCP server (tRPC mcpServers.list, over HTTP as an admin):
// calls per tool, their failures and time, and the server's health (last call, last failure),
// counted from the calls the agent's project_cli makes.

const TOKEN = `token-${randomUUID()}`;
const SERVER = `desk_${randomUUID().slice(0, 8)}`;

type Listed = {
  servers: { name: string; health: { lastMs: number; lastError: string | null; lastErrorAt: string | null } | null; tools: { name: string; stats: { calls: number; failures: number; avgMs: number } | null }[] }[];
};

let tickets: TicketsServer;
let user: Awaited<ReturnType<typeof createTestUser>>;
let adminCookie = "";
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  let admin: Awaited<ReturnType<typeof createTestUser>>;
  [user, admin] = await Promise.all([createTestUser(), createTestUser({ role: "admin" })]);
  adminCookie = (await signInOverHttp(admin.email, admin.password))!;
  ({ tickets, dispose } = await startGrantedTicketsServer({ name: SERVER, token: TOKEN, email: user.email }));
}, 60_000);

afterAll(() => dispose?.());

const listed = async () => {
  const body = (await (await trpcGet("mcpServers.list", undefined, { cookie: adminCookie })).json()) as { result: { data: { json: Listed } } };
  return body.result.data.json.servers.find((s) => s.name === SERVER)!;
};
const call = (method: string, input: Record<string, unknown>) =>
  runProjectCli({ userId: user.id, runId: randomUUID(), toolCallId: `call_${randomUUID()}`, args: { module: SERVER, method, input } });

describe("an MCP server's health and calls per tool", () => {
  it("shows nothing called before the first call, then counts calls, failures and the last failure", async () => {
    const fresh = await listed();
    expect(fresh.health).toBeNull();
    expect(fresh.tools.every((t) => t.stats === null)).toBe(true);

    await call("find_ticket", { id: "T-1" });
    await call("find_ticket", { id: "T-2" });
    // Refused before anything is sent: not a call of the server.
    expect((await call("find_ticket", { nope: 1 })).output.error?.code).toBe("INVALID_ACTION_INPUT");
    await tickets.stop();
    expect((await call("find_ticket", { id: "T-3" })).output.error?.code).toBe("TOOL_UNAVAILABLE");
    await tickets.start();

    const after = await listed();
    const find = after.tools.find((t) => t.name === "find_ticket")!;
    expect(find.stats).toMatchObject({ calls: 3, failures: 1 });
    expect(after.tools.find((t) => t.name === "create_ticket")!.stats).toBeNull();
    expect(after.health).toMatchObject({ lastError: "TOOL_UNAVAILABLE", lastErrorAt: expect.any(String) });
  });
});
