import { apiRoute } from "@/server/http/route";
import { handleHostApiCall } from "@/server/runner-host/api/handle-call";

export const dynamic = "force-dynamic";

// POST /api/v1/runner-api/{group}/{action}: a runner's call to the host API for one of its runs
export const POST = apiRoute(async (req, { params }) => {
  const { group, action } = (await params) as { group: string; action: string };
  return handleHostApiCall(req, { group, action });
});
