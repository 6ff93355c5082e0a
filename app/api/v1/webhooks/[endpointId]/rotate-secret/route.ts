import { rotateWebhookSecretEndpoint } from "@/server/http/endpoints/webhooks";

export const dynamic = "force-dynamic";
export const POST = rotateWebhookSecretEndpoint.handler;
