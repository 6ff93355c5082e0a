import { listWebhookDeliveriesEndpoint } from "@/server/http/endpoints/webhooks";

export const dynamic = "force-dynamic";
export const GET = listWebhookDeliveriesEndpoint.handler;
