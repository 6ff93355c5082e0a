import { createWebhookEndpointEndpoint, listWebhookEndpointsEndpoint } from "@/server/http/endpoints/webhooks";

export const dynamic = "force-dynamic";
export const GET = listWebhookEndpointsEndpoint.handler;
export const POST = createWebhookEndpointEndpoint.handler;
