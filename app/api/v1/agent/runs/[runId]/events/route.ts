import { runEventsEndpoint } from "@/server/http/endpoints/runs";

export const dynamic = "force-dynamic";
export const maxDuration = 300;
export const GET = runEventsEndpoint.handler;
