import "server-only";
import { z } from "zod";
import { userApprovalPolicySchema } from "../../approvals/policy";
import { approvalInbox, getApprovalPolicy, setApprovalPolicy } from "../../approvals/service";
import { createTRPCRouter, protectedProcedure } from "../init";

// The signed-in user's approval policy: which of the agent's writes wait for them, and the inbox
// of requests waiting across their threads (docs/approvals.md).
export const approvalPolicyRouter = createTRPCRouter({
  get: protectedProcedure.query(async ({ ctx }) => ({ policy: await getApprovalPolicy({ userId: ctx.principal.userId }) })),
  set: protectedProcedure
    .input(z.object({ policy: userApprovalPolicySchema }))
    .mutation(async ({ ctx, input }) => ({ policy: await setApprovalPolicy({ userId: ctx.principal.userId, policy: input.policy }) })),
  inbox: protectedProcedure
    .input(z.object({ locale: z.string().max(35).optional() }))
    .query(async ({ ctx, input }) => ({ items: await approvalInbox({ userId: ctx.principal.userId, locale: input.locale }) })),
});
