import "server-only";
import { z } from "zod";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listEveryWebhookEndpoint,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from "../../webhooks/service";
import { AdminCreateWebhookEndpointSchema, UpdateWebhookEndpointSchema } from "../../webhooks/schemas";
import { adminProcedure, createTRPCRouter } from "../init";

// Webhook endpoints in the console (docs/webhooks.md): admins see everyone's with their delivery
// logs, redeliver, re-enable, and register their own, for their runs or every run of a binding.

const id = z.uuid();

export const webhooksRouter = createTRPCRouter({
  list: adminProcedure.query(() => listEveryWebhookEndpoint()),
  create: adminProcedure.input(AdminCreateWebhookEndpointSchema).mutation(({ ctx, input }) => createWebhookEndpoint({ ...input, userId: ctx.principal.userId })),
  update: adminProcedure.input(UpdateWebhookEndpointSchema.extend({ id })).mutation(({ input }) => updateWebhookEndpoint({ ...input, userId: null })),
  remove: adminProcedure.input(z.object({ id })).mutation(({ input }) => deleteWebhookEndpoint({ ...input, userId: null })),
  rotateSecret: adminProcedure.input(z.object({ id })).mutation(({ input }) => rotateWebhookSecret({ ...input, userId: null })),
  deliveries: adminProcedure
    .input(z.object({ endpointId: id, limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ input }) => listWebhookDeliveries({ ...input, userId: null })),
  redeliver: adminProcedure.input(z.object({ endpointId: id, id })).mutation(({ input }) => redeliverWebhook({ ...input, userId: null })),
});
