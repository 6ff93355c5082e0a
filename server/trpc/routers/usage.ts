import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../init";
import { ledgerCsv, listBudgets, myUsage, setBudgets, usageReport } from "../../usage/service";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a UTC day as YYYY-MM-DD");
const budget = (max: number) => z.number().int().min(1).max(max).nullable();

// The usage ledger and budgets: the console's usage page (admins) and a user's own usage.
export const usageRouter = createTRPCRouter({
  report: adminProcedure.input(z.object({ from: day, to: day })).query(({ input }) => usageReport(input)),
  csv: adminProcedure.input(z.object({ from: day, to: day })).query(async ({ input }) => ledgerCsv(await usageReport(input))),
  budgets: adminProcedure.query(() => listBudgets()),
  setBudgets: adminProcedure
    .input(
      z.object({
        subject: z.enum(["default", "user", "api_key"]),
        subjectId: z.string().uuid().optional(),
        tokensPerDay: budget(Number.MAX_SAFE_INTEGER),
        runsPerMinute: budget(1_000_000),
        concurrentRuns: budget(1_000_000),
      }),
    )
    .mutation(({ input: { subject, subjectId, ...values } }) => setBudgets({ subject, subjectId, values })),
  mine: protectedProcedure.query(({ ctx }) => myUsage({ userId: ctx.principal.userId })),
});
