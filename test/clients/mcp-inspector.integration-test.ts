// The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli 1.0.3, installed in ./mcp-inspector)
// against Dispatch's own MCP endpoint, POST /api/v1/mcp, with an API key: it lists and calls the
// key owner's tools, and another user's key does not reach them.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/server/accounts/service/api-keys";
import { baseUrl, createTestUser } from "@/test/helpers";

const run = promisify(execFile);
const BUILD = path.join(__dirname, "mcp-inspector/node_modules/@modelcontextprotocol/inspector-cli/build");

async function inspector(apiKey: string, ...args: string[]): Promise<unknown> {
  // Its own build directory as the working directory: the CLI finds its package.json by a path
  // it checks against the working directory but imports against its module.
  const cli = [path.join(BUILD, "index.js"), `${baseUrl()}/api/v1/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${apiKey}`];
  const { stdout } = await run(process.execPath, [...cli, ...args], { timeout: 30_000, cwd: BUILD });
  return JSON.parse(stdout);
}

let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
let aliceAuto = "";

beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  aliceAuto = (await createApiKey({ userId: alice.id, name: "inspector", autoApprove: true })).key;
});

describe("the MCP Inspector CLI against Dispatch", () => {
  it("lists the tools with their schemas and hints", async () => {
    const { tools } = (await inspector(alice.apiKey, "--method", "tools/list")) as { tools: { name: string; annotations: Record<string, boolean> }[] };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["calendar_read", "contacts_read", "memory_read", "memory_update"]));
    expect(tools.find((t) => t.name === "memory_read")!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("calls a tool for the key's owner only", async () => {
    const key = `inspected_${Date.now()}`;
    const written = (await inspector(aliceAuto, "--method", "tools/call", "--tool-name", "memory_update", "--tool-arg", `key=${key}`, "value=green")) as { isError?: boolean };
    expect(written.isError).toBeFalsy();
    const mine = JSON.stringify(await inspector(alice.apiKey, "--method", "tools/call", "--tool-name", "memory_read"));
    const theirs = JSON.stringify(await inspector(bob.apiKey, "--method", "tools/call", "--tool-name", "memory_read"));
    expect(mine).toContain(key);
    expect(theirs).not.toContain(key);
  });

  it("fails without a valid key", async () => {
    await expect(inspector("dsp_not_a_key", "--method", "tools/list")).rejects.toThrow(/401|Unauthorized|Invalid API key/i);
  });
});
