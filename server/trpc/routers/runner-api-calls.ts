import "server-only";
import { z } from "zod";
import { listRunApiCalls } from "../../repositories/runner-audit";
import { refusedCallCounts } from "../../runner-host/api/refusals";
import { adminProcedure, createTRPCRouter } from "../init";

// The host API audit for the admin run page, and this instance's count of calls refused before
// authentication (never stored one row each).
export const runnerApiCallsRouter = createTRPCRouter({
  list: adminProcedure
    .input(z.object({ runId: z.uuid().describe("runs.id (the task id)"), limit: z.int().min(1).max(1000).default(500) }))
    .query(({ input }) => listRunApiCalls(input)),
  refusals: adminProcedure.query(() => ({ byReason: refusedCallCounts() })),
});
