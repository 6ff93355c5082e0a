import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../init";
import { MULTITASK_STRATEGIES } from "../../protocols/ag-ui/multitask";
import {
  bindRunner,
  listMyAgents,
  refreshRunner,
  registerAgent,
  registerRunner,
  removeRunnerBinding,
  removeRunnerEndpoint,
  runnersOverview,
  runResults,
  updateRunnerBinding,
} from "../../runner-host/service";

const jsonObject = z.record(z.string(), z.unknown());

export const runnersRouter = createTRPCRouter({
  overview: adminProcedure.query(() => runnersOverview()),
  // The agents bound for the signed-in user, for the chat's agent picker.
  mine: protectedProcedure.query(({ ctx }) => listMyAgents({ userId: ctx.principal.userId })),
  register: adminProcedure
    .input(z.object({ url: z.string().trim().min(1).max(2000), secret: z.string().min(1).max(500) }))
    .mutation(({ input }) => registerRunner(input)),
  registerAgent: adminProcedure
    .input(
      z.object({
        url: z.string().trim().min(1).max(2000),
        name: z.string().trim().min(1).max(64),
        label: z.string().trim().min(1).max(200).optional(),
        headers: z.record(z.string(), z.string().max(8192)).optional(),
        connectSeconds: z.int().min(1).max(600).optional(),
        stallSeconds: z.int().min(1).max(3600).optional(),
      }),
    )
    .mutation(({ input }) => registerAgent(input)),
  refresh: adminProcedure.input(z.object({ endpointId: z.uuid() })).mutation(({ input }) => refreshRunner(input)),
  removeEndpoint: adminProcedure.input(z.object({ endpointId: z.uuid() })).mutation(({ input }) => removeRunnerEndpoint(input)),
  bind: adminProcedure
    .input(
      z.object({
        runnerId: z.string().min(1).max(200),
        email: z.string().trim().max(320).optional(),
        threadId: z.uuid().optional(),
        config: jsonObject.optional(),
        policy: jsonObject.optional(),
        autoApprove: z.boolean().optional(),
        multitaskStrategy: z.enum(MULTITASK_STRATEGIES).nullable().optional(),
      }),
    )
    .mutation(({ input }) => bindRunner({ ...input, email: input.email || null })),
  updateBinding: adminProcedure
    .input(
      z.object({
        id: z.uuid(),
        enabled: z.boolean().optional(),
        config: jsonObject.optional(),
        policy: jsonObject.optional(),
        autoApprove: z.boolean().optional(),
        // null clears the binding's own default (reject).
        multitaskStrategy: z.enum(MULTITASK_STRATEGIES).nullable().optional(),
      }),
    )
    .mutation(({ input }) => updateRunnerBinding(input)),
  removeBinding: adminProcedure.input(z.object({ id: z.uuid() })).mutation(({ input }) => removeRunnerBinding(input)),
  results: adminProcedure.input(z.object({ runId: z.uuid() })).query(({ input }) => runResults(input)),
});
