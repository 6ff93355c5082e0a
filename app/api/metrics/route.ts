import { metricsEndpoint } from "@/server/http/endpoints/metrics";

export const dynamic = "force-dynamic";
export const GET = metricsEndpoint.handler;
