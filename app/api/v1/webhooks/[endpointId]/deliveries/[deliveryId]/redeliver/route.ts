import { redeliverWebhookEndpoint } from "@/server/http/endpoints/webhooks";

export const dynamic = "force-dynamic";
export const POST = redeliverWebhookEndpoint.handler;
