import "server-only";
import { MAX_CONVERSATION_PAYLOAD_BYTES } from "../../protocols/ag-ui/run-input-rules";
import type { Endpoint } from "../endpoint";
import type { NodeRoute } from "../node-routes";
import { conversationRunEndpoint } from "./ag-ui";
import { agentProcessEndpoint } from "./agent-api";
import { historyEndpoint } from "./history";
import { runEventsEndpoint, startRunAliasEndpoint, startRunEndpoint } from "./runs";

// The protocol calls API keys make most, which scripts/start-server.mjs serves without Next
// (node-routes.ts): the very endpoints the routes export, so both paths run the same code.
// `maxBodyBytes`: larger declared bodies go to Next (default: the seed's run limit).
const FAST_PATH: { endpoint: Endpoint<"GET" | "POST">; maxBodyBytes?: number }[] = [
  { endpoint: startRunEndpoint },
  { endpoint: startRunAliasEndpoint },
  { endpoint: runEventsEndpoint },
  { endpoint: agentProcessEndpoint },
  { endpoint: historyEndpoint },
  { endpoint: conversationRunEndpoint, maxBodyBytes: MAX_CONVERSATION_PAYLOAD_BYTES },
];

export function fastPathRoutes(): NodeRoute[] {
  return FAST_PATH.map(({ endpoint: { method, path, handler }, maxBodyBytes }) => ({ method, path, handler, maxBodyBytes }));
}
