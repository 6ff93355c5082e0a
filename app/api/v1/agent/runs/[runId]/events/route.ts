import { runEventsEndpoint } from "@/server/http/endpoints/runs";

export const dynamic = "force-dynamic";
export const GET = runEventsEndpoint.handler;
