import { deleteWebhookEndpointEndpoint, getWebhookEndpointEndpoint, updateWebhookEndpointEndpoint } from "@/server/http/endpoints/webhooks";

export const dynamic = "force-dynamic";
export const GET = getWebhookEndpointEndpoint.handler;
export const PATCH = updateWebhookEndpointEndpoint.handler;
export const DELETE = deleteWebhookEndpointEndpoint.handler;
