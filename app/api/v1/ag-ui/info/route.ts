import { apiRoute } from "@/server/http/route";
import { handleConversationInfo } from "@/server/http/ag-ui-agent";

export const dynamic = "force-dynamic";

// GET /api/v1/ag-ui/info: the agent's AG-UI capabilities
export const GET = apiRoute(handleConversationInfo);
