import { z } from "zod";

// What webhook endpoints take and give (docs/webhooks.md): the REST routes and the console's tRPC
// procedures validate with these, and the OpenAPI document is made from them.

export const WEBHOOK_EVENT_TYPES = ["run.completed", "run.failed", "run.cancelled", "run.interrupted", "approval.decided"] as const;
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).meta({ description: "An event a webhook endpoint can receive." });
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

const URL_LIMIT = 2048;

export const CreateWebhookEndpointSchema = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: "url must be an http or https URL" })
      .max(URL_LIMIT)
      .meta({ description: "Where the events are POSTed: a public address (hosts in RUNNER_ALLOWED_HOSTS excepted)." }),
    events: z
      .array(WebhookEventTypeSchema)
      .min(1)
      .max(WEBHOOK_EVENT_TYPES.length)
      .default([...WEBHOOK_EVENT_TYPES])
      .meta({ description: "The events to send; every one when left out." }),
    description: z.string().trim().max(200).optional().meta({ description: "A note for people, shown in the console." }),
  })
  .meta({ id: "CreateWebhookEndpoint" });
export type CreateWebhookEndpoint = z.infer<typeof CreateWebhookEndpointSchema>;

export const UpdateWebhookEndpointSchema = z
  .strictObject({
    url: CreateWebhookEndpointSchema.shape.url.optional(),
    events: z.array(WebhookEventTypeSchema).min(1).max(WEBHOOK_EVENT_TYPES.length).optional(),
    description: z.string().trim().max(200).nullable().optional(),
    enabled: z.boolean().optional().meta({ description: "false switches the endpoint off; true switches it on again (also after it was disabled for failing), resetting its failure count." }),
  })
  .meta({ id: "UpdateWebhookEndpoint" });
export type UpdateWebhookEndpoint = z.infer<typeof UpdateWebhookEndpointSchema>;

export const WebhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(WebhookEventTypeSchema),
    bindingId: z.uuid().nullable().meta({ description: "Set for an admin's endpoint that hears every run of one agent binding." }),
    enabled: z.boolean(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable().meta({ description: "Why the endpoint is off: its owner's choice, or sustained failure (the notice)." }),
    consecutiveFailures: z.number().int(),
    failingSince: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "WebhookEndpoint" });

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().meta({ description: "The signing secret (whsec_...), shown this once: verify signatures with any Standard Webhooks library." }),
}).meta({ id: "WebhookEndpointWithSecret" });

export const WebhookEndpointListSchema = z.object({ items: z.array(WebhookEndpointSchema) }).meta({ id: "WebhookEndpointList" });

export const WebhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: "The message id, sent as webhook-id on every attempt: deduplicate by it." }),
    eventType: WebhookEventTypeSchema,
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    lastStatus: z.number().int().nullable().meta({ description: "The HTTP status of the last attempt's answer (none: no answer)." }),
    lastError: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    payload: z.unknown(),
  })
  .meta({ id: "WebhookDelivery" });

export const WebhookDeliveryPageSchema = z.object({ items: z.array(WebhookDeliverySchema) }).meta({ id: "WebhookDeliveryPage" });

export const ListDeliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: "At most this many, newest first." }),
  status: z.enum(["pending", "delivered", "failed"]).optional(),
});

export const AdminCreateWebhookEndpointSchema = CreateWebhookEndpointSchema.extend({
  bindingId: z.uuid().optional().meta({ description: "Hear every run of this agent binding; none: the admin's own runs." }),
});
