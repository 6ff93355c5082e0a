import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { createApiKey, listApiKeyPage, revokeApiKey } from "../../accounts/service/api-keys";

export const apiKeysRouter = createTRPCRouter({
  list: adminProcedure
    .input(
      z.object({
        userId: z.string().uuid().optional(),
        cursor: z.string().uuid().optional(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .query(({ input }) => listApiKeyPage(input)),
  // The key is returned once, here; only its hash is stored.
  create: adminProcedure
    .input(z.object({ userId: z.string().uuid(), name: z.string().trim().min(1).max(100).optional(), autoApprove: z.boolean().optional() }))
    .mutation(async ({ input }) => {
      const { key, record } = await createApiKey(input);
      return { key, record };
    }),
  revoke: adminProcedure.input(z.object({ id: z.string().uuid() })).mutation(({ input }) => revokeApiKey(input)),
});
