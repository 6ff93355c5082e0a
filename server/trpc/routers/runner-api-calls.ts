import "server-only";
import { z } from "zod";
import { refusedApiCalls, runApiCalls } from "../../runner-host/service";
import { adminProcedure, createTRPCRouter } from "../init";

// The host API audit for the admin run page, and this instance's count of calls refused before
// authentication (never stored one row each).
export const runnerApiCallsRouter = createTRPCRouter({
  list: adminProcedure
    .input(z.object({ runId: z.uuid().describe("runs.id (the task id)"), limit: z.int().min(1).max(1000).default(500) }))
    .query(({ input }) => runApiCalls(input)),
  refusals: adminProcedure.query(() => refusedApiCalls()),
});
