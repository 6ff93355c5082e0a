import { apiRoute } from "@/server/http/route";
import { handleConversationRun } from "@/server/http/ag-ui-agent";

export const dynamic = "force-dynamic";

// POST /api/v1/ag-ui: run the agent for an AG-UI client that holds the conversation (SSE with Accept: text/event-stream, else 202)
export const POST = apiRoute(handleConversationRun);
