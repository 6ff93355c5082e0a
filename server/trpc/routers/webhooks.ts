import "server-only";
import { z } from "zod";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listEveryWebhookEndpoint,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from "../../webhooks/service";
import { AdminCreateWebhookEndpointSchema, CreateWebhookEndpointSchema, UpdateWebhookEndpointSchema } from "../../webhooks/schemas";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../init";

// Webhook endpoints in the console (docs/webhooks.md): admins see everyone's with their delivery
// logs, redeliver, re-enable, and register their own, for their runs or every run of a binding.
// The chat settings manage the user's own (`mine…`), as the REST routes do.

const id = z.uuid();

const deliveriesInput = z.object({ endpointId: id, limit: z.number().int().min(1).max(200).default(50) });

export const webhooksRouter = createTRPCRouter({
  mine: protectedProcedure.query(({ ctx }) => listWebhookEndpoints({ userId: ctx.principal.userId })),
  createMine: protectedProcedure.input(CreateWebhookEndpointSchema).mutation(({ ctx, input }) => createWebhookEndpoint({ ...input, userId: ctx.principal.userId })),
  updateMine: protectedProcedure.input(UpdateWebhookEndpointSchema.extend({ id })).mutation(({ ctx, input }) => updateWebhookEndpoint({ ...input, userId: ctx.principal.userId })),
  removeMine: protectedProcedure.input(z.object({ id })).mutation(({ ctx, input }) => deleteWebhookEndpoint({ ...input, userId: ctx.principal.userId })),
  myDeliveries: protectedProcedure.input(deliveriesInput).query(({ ctx, input }) => listWebhookDeliveries({ ...input, userId: ctx.principal.userId })),
  list: adminProcedure.query(() => listEveryWebhookEndpoint()),
  create: adminProcedure.input(AdminCreateWebhookEndpointSchema).mutation(({ ctx, input }) => createWebhookEndpoint({ ...input, userId: ctx.principal.userId })),
  update: adminProcedure.input(UpdateWebhookEndpointSchema.extend({ id })).mutation(({ input }) => updateWebhookEndpoint({ ...input, userId: null })),
  remove: adminProcedure.input(z.object({ id })).mutation(({ input }) => deleteWebhookEndpoint({ ...input, userId: null })),
  rotateSecret: adminProcedure.input(z.object({ id })).mutation(({ input }) => rotateWebhookSecret({ ...input, userId: null })),
  deliveries: adminProcedure.input(deliveriesInput).query(({ input }) => listWebhookDeliveries({ ...input, userId: null })),
  redeliver: adminProcedure.input(z.object({ endpointId: id, id })).mutation(({ input }) => redeliverWebhook({ ...input, userId: null })),
});
