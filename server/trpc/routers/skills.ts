import "server-only";
import { z } from "zod";
import { getUserSkills, listBindingSkills, setBindingSkills, setUserSkills } from "../../tools/service/skills";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../init";

// enabled_skills: which skills the agent is shown, for the signed-in user (chat settings) and,
// for admins, per runner binding (console). Never what the agent may run (docs/skills.md).
const enabledSkills = z.array(z.string().min(1).max(64)).max(100);

export const skillsRouter = createTRPCRouter({
  get: protectedProcedure.query(({ ctx }) => getUserSkills({ userId: ctx.principal.userId })),
  set: protectedProcedure
    .input(z.object({ enabledSkills }))
    .mutation(({ ctx, input }) => setUserSkills({ userId: ctx.principal.userId, enabledSkills: input.enabledSkills })),
  bindings: adminProcedure.query(() => listBindingSkills()),
  setBinding: adminProcedure
    .input(z.object({ bindingId: z.uuid(), enabledSkills }))
    .mutation(({ input }) => setBindingSkills(input)),
});
