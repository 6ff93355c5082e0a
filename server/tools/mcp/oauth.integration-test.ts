import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantMcpServer, listMcpServerViews, registerMcpServer, removeMcpServer } from "@/server/tools/service/mcp-servers";
import { createTestUser } from "@/test/helpers";
import { startTicketsServer, type TicketsServer } from "@/test/mcp-servers";
import { runProjectCli } from "@/server/tools/project-cli/tool";

// An MCP server behind OAuth 2.1 client credentials (the tickets server and its own authorization
// server, test/mcp-servers.ts): Dispatch finds the authorization server from the server's metadata
// (RFC 9728), pins it, fetches a token with the client's id and secret, and fetches a new one when
// the server stops taking the old; the secret shows nowhere but the token request.

const SECRET = `secret-${randomUUID()}`;
const CLIENT = { clientId: "dispatch-test", clientSecret: SECRET };
const SERVER = `oauth_${randomUUID().slice(0, 8)}`;

let tickets: TicketsServer;
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  [tickets, user] = await Promise.all([startTicketsServer({ token: "unused", oauth: CLIENT }), createTestUser()]);
}, 60_000);

afterAll(async () => {
  await removeMcpServer({ name: SERVER }).catch(() => {});
  await tickets?.stop();
});

// The agent's project_cli call of the server's tool, as a run makes it (the connection pool of this process).
async function findTicket(id: string) {
  const { output } = await runProjectCli({ userId: user.id, runId: randomUUID(), toolCallId: `call_${randomUUID()}`, args: { module: SERVER, method: "find_ticket", input: { id } } });
  return { text: JSON.stringify(output), result: output as { status: string } };
}

describe("an MCP server that asks for OAuth client credentials", () => {
  it("refuses credentials its authorization server refuses, or one it was not pinned to, or on a private address, never repeating the secret", async () => {
    const wrong = `wrong-${randomUUID()}`;
    const refused = await registerMcpServer({ name: SERVER, url: tickets.url, oauth: { clientId: CLIENT.clientId, clientSecret: wrong } }).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/refused Dispatch's client credentials/);
    expect((refused as Error).message).not.toContain(wrong);
    expect(tickets.tokensIssued).toBe(0);
    // Credentials pinned to one authorization server are never presented to the one the server names instead.
    await expect(registerMcpServer({ name: SERVER, url: tickets.url, oauth: { ...CLIENT, issuer: "https://auth.example.com" } })).rejects.toThrow(/other than https:\/\/auth\.example\.com.*not sent/);
    // An authorization server on a private address is never asked, as a private MCP server would not be.
    const inside = await startTicketsServer({ token: "unused", oauth: { ...CLIENT, advertise: "http://10.1.2.3:9000" } });
    try {
      await expect(registerMcpServer({ name: SERVER, url: inside.url, oauth: CLIENT })).rejects.toThrow(/RUNNER_ALLOWED_HOSTS/);
    } finally {
      await inside.stop();
    }
    // A token and client credentials both claim the Authorization header.
    await expect(registerMcpServer({ name: SERVER, url: tickets.url, bearerToken: "t", oauth: CLIENT })).rejects.toThrow(/not both/);
  });

  it("registers with a token it fetched, calls its tools, and fetches a new token when the old one is refused", async () => {
    const registered = await registerMcpServer({ name: SERVER, url: tickets.url, oauth: CLIENT });
    expect(registered.tools.map((t) => t.name)).toContain("find_ticket");
    expect(registered.hasAuth).toBe(true);
    expect(tickets.tokensIssued).toBe(1);
    await grantMcpServer({ name: SERVER, email: user.email });

    const first = await findTicket("T-7");
    expect(first.result.status).toBe("success");
    expect(first.text).toContain("Printer on fire");
    const issuedBefore = tickets.tokensIssued;

    // The server forgets every token: the next call is answered 401, and the client asks for a new one.
    tickets.voidTokens();
    const second = await findTicket("T-8");
    expect(second.result.status).toBe("success");
    expect(tickets.tokensIssued).toBe(issuedBefore + 1);

    for (const seen of [first.text, second.text, JSON.stringify(await listMcpServerViews())]) expect(seen).not.toContain(SECRET);
    // The MCP server itself only ever saw bearer tokens, never the client secret.
    expect(tickets.authorizations.filter(Boolean).every((a) => /^Bearer at-/.test(a))).toBe(true);
  });
});
