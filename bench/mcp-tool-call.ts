// Times one call of an MCP server's tool the way the built-in agent makes it (runMcpCall: the
// granted tool's schema check, its read/write kind, the pooled connection, the answer turned into
// project_cli's output, the per-tool count for the console), beside the same call made directly
// with the SDK's Client on a connected session: the difference is what Dispatch adds to a call.
// The server is the tests' "tickets" server on loopback (test/mcp-servers.ts), `find_ticket` a read.
// Prints {"direct": [ms...], "dispatch": [ms...]} as its last line.
// Runs with the server's environment and the react-server condition.
//   node --conditions=react-server --import tsx bench/mcp-tool-call.ts --user ID --calls N
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { runMcpCall } from "@/server/tools/mcp/calls";
import { grantMcpServer, registerMcpServer, removeMcpServer } from "@/server/tools/service/mcp-servers";
import { startTicketsServer } from "@/test/mcp-servers";

const { values } = parseArgs({ options: { user: { type: "string" }, email: { type: "string", default: "bench@dispatch.local" }, calls: { type: "string" }, warmup: { type: "string", default: "5" } } });
const calls = Number(values.calls);
const token = randomUUID();
const name = `benchtickets${randomUUID().slice(0, 6)}`;
const tickets = await startTicketsServer({ token });
const registered = await registerMcpServer({ name, url: tickets.url, bearerToken: token });
await grantMcpServer({ name, email: values.email });
const server = { id: registered.id, name, tools: registered.tools };
const input = { id: "T-9" };

async function timed(fn: () => Promise<unknown>, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}

const client = new Client({ name: "dispatch-bench", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(tickets.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
const direct = async () => {
  const result = await client.callTool({ name: "find_ticket", arguments: input });
  if (result.isError) throw new Error("find_ticket failed directly");
};
const viaDispatch = async () => {
  const out = await runMcpCall({ server, method: "find_ticket", input, effectKey: { userId: values.user!, runId: randomUUID(), toolCallId: `call_${randomUUID()}` } });
  if (!out.ok) throw new Error(`find_ticket failed through Dispatch: ${JSON.stringify(out.error)}`);
};

try {
  await timed(direct, Number(values.warmup));
  await timed(viaDispatch, Number(values.warmup));
  // Interleaved halves, so that a slower stretch of the machine weighs on both.
  const result = { direct: [] as number[], dispatch: [] as number[] };
  for (let half = 0; half < 2; half++) {
    result.direct.push(...(await timed(direct, calls / 2)));
    result.dispatch.push(...(await timed(viaDispatch, calls / 2)));
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await client.close();
  await removeMcpServer({ name }).catch(() => {});
  await tickets.stop();
}
process.exit(0);
