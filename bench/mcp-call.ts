// Times Dispatch's own MCP tools as an MCP client calls them: the official SDK's Client over
// Streamable HTTP to POST /api/v1/mcp with the bench user's API key, calendar_read with the input
// bench/cli-call.ts gives project_cli's calendar.read, one call after another on one connected client
// (each call is one POST: the endpoint is stateless). Beside the child-process figure it shows what
// the MCP door adds or saves for the same action.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { percentile } from "./load";
import type { CliFigures } from "./report";

export async function measureMcpCalls(opts: { port: number; apiKey: string; calls: number; warmup?: number }): Promise<CliFigures> {
  const client = new Client({ name: "dispatch-bench", version: "1.0.0" });
  const url = new URL(`http://127.0.0.1:${opts.port}/api/v1/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${opts.apiKey}` } } }));
  const call = async (): Promise<number> => {
    const started = performance.now();
    const result = (await client.callTool({ name: "calendar_read", arguments: { mode: "day", date: "2026-03-15" } })) as CallToolResult;
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`calendar_read failed: ${JSON.stringify(result.content)}`);
    return ms;
  };
  try {
    for (let i = 0; i < (opts.warmup ?? 3); i++) await call();
    const times: number[] = [];
    for (let i = 0; i < opts.calls; i++) times.push(await call());
    times.sort((a, b) => a - b);
    return { median: percentile(times, 50), p95: percentile(times, 95), calls: times.length };
  } finally {
    await client.close();
  }
}
