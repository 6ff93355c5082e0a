import "server-only";
import { z } from "zod";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from "../../webhooks/service";
import {
  CreateWebhookEndpointSchema,
  ListDeliveriesQuerySchema,
  UpdateWebhookEndpointSchema,
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from "../../webhooks/schemas";
import { jsonBody } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

// The caller's webhook endpoints over REST (docs/webhooks.md), for API keys and browser sessions
// alike: each caller sees and changes only their own.

const TAG = "Webhooks";
const ENDPOINT_ID = { endpointId: "The webhook endpoint's id." };
const Deleted = z.object({ deleted: z.literal(true) }).meta({ id: "DeletedWebhookEndpoint" });

/** POST /api/v1/webhooks: registers an endpoint; the answer holds its signing secret, this once. */
export const createWebhookEndpointEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/webhooks",
  auth: "caller",
  body: jsonBody(CreateWebhookEndpointSchema),
  doc: {
    operationId: "createWebhookEndpoint",
    tag: TAG,
    summary: "Register a webhook endpoint",
    description: "Events of the caller's runs are POSTed to `url`, signed per the Standard Webhooks specification with the returned secret (shown only here).",
    responses: { 201: { description: "The endpoint and its signing secret.", json: WebhookEndpointWithSecretSchema } },
    errors: [400],
  },
  handle: async ({ principal, body }) => jsonResponse(await createWebhookEndpoint({ ...body, userId: principal.userId }), 201),
});

/** GET /api/v1/webhooks: the caller's endpoints, newest first. */
export const listWebhookEndpointsEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/webhooks",
  auth: "caller",
  doc: { operationId: "listWebhookEndpoints", tag: TAG, summary: "List webhook endpoints", responses: { 200: { description: "The caller's endpoints.", json: WebhookEndpointListSchema } } },
  handle: async ({ principal }) => jsonResponse({ items: await listWebhookEndpoints({ userId: principal.userId }) }),
});

/** GET /api/v1/webhooks/{endpointId}. */
export const getWebhookEndpointEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/webhooks/[endpointId]",
  auth: "caller",
  doc: { operationId: "getWebhookEndpoint", tag: TAG, summary: "Get a webhook endpoint", params: ENDPOINT_ID, responses: { 200: { description: "The endpoint, with its failure streak and any notice.", json: WebhookEndpointSchema } }, errors: [404] },
  handle: async ({ principal, params }) => jsonResponse(await getWebhookEndpoint({ userId: principal.userId, id: params.endpointId! })),
});

/** PATCH /api/v1/webhooks/{endpointId}: url, events, description, enabled. */
export const updateWebhookEndpointEndpoint = endpoint({
  method: "PATCH",
  path: "/api/v1/webhooks/[endpointId]",
  auth: "caller",
  body: jsonBody(UpdateWebhookEndpointSchema),
  doc: { operationId: "updateWebhookEndpoint", tag: TAG, summary: "Change or re-enable a webhook endpoint", params: ENDPOINT_ID, responses: { 200: { description: "The endpoint as it is now.", json: WebhookEndpointSchema } }, errors: [400, 404] },
  handle: async ({ principal, params, body }) => jsonResponse(await updateWebhookEndpoint({ ...body, userId: principal.userId, id: params.endpointId! })),
});

/** DELETE /api/v1/webhooks/{endpointId}: the endpoint and its delivery log. */
export const deleteWebhookEndpointEndpoint = endpoint({
  method: "DELETE",
  path: "/api/v1/webhooks/[endpointId]",
  auth: "caller",
  doc: { operationId: "deleteWebhookEndpoint", tag: TAG, summary: "Delete a webhook endpoint", params: ENDPOINT_ID, responses: { 200: { description: "Deleted, with its deliveries.", json: Deleted } }, errors: [404] },
  async handle({ principal, params }) {
    await deleteWebhookEndpoint({ userId: principal.userId, id: params.endpointId! });
    return jsonResponse({ deleted: true });
  },
});

/** POST /api/v1/webhooks/{endpointId}/rotate-secret: a new secret; the old one signs beside it for 24 hours. */
export const rotateWebhookSecretEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/webhooks/[endpointId]/rotate-secret",
  auth: "caller",
  doc: {
    operationId: "rotateWebhookSecret",
    tag: TAG,
    summary: "Rotate a webhook endpoint's secret",
    description: "Returns the new secret, this once. For 24 hours every delivery carries two signatures (new and old) in `webhook-signature`, so the receiver can switch without a gap.",
    params: ENDPOINT_ID,
    responses: { 200: { description: "The endpoint and its new secret.", json: WebhookEndpointWithSecretSchema } },
    errors: [404],
  },
  handle: async ({ principal, params }) => jsonResponse(await rotateWebhookSecret({ userId: principal.userId, id: params.endpointId! })),
});

/** GET /api/v1/webhooks/{endpointId}/deliveries: the delivery log, newest first. */
export const listWebhookDeliveriesEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/webhooks/[endpointId]/deliveries",
  auth: "caller",
  query: ListDeliveriesQuerySchema,
  doc: { operationId: "listWebhookDeliveries", tag: TAG, summary: "List an endpoint's deliveries", params: ENDPOINT_ID, responses: { 200: { description: "Deliveries, newest first, with their attempts and last outcome.", json: WebhookDeliveryPageSchema } }, errors: [400, 404] },
  handle: async ({ principal, params, query }) => jsonResponse({ items: await listWebhookDeliveries({ userId: principal.userId, endpointId: params.endpointId!, limit: query.limit, status: query.status }) }),
});

/** POST /api/v1/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver: send it again now, same webhook-id. */
export const redeliverWebhookEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/webhooks/[endpointId]/deliveries/[deliveryId]/redeliver",
  auth: "caller",
  doc: {
    operationId: "redeliverWebhook",
    tag: TAG,
    summary: "Redeliver a webhook",
    description: "Sends the delivery again now under its webhook-id, with a fresh round of attempts; 409 while the endpoint is disabled.",
    params: { ...ENDPOINT_ID, deliveryId: "The delivery's id (its webhook-id)." },
    responses: { 202: { description: "Queued.", json: WebhookDeliverySchema } },
    errors: [404, 409],
  },
  handle: async ({ principal, params }) => jsonResponse(await redeliverWebhook({ userId: principal.userId, endpointId: params.endpointId!, id: params.deliveryId! }), 202),
});
