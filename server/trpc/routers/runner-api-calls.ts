import "server-only";
import { z } from "zod";
import { listRunApiCalls } from "../../repositories/runner-audit";
import { adminProcedure, createTRPCRouter } from "../init";

// The host API audit for the admin run page.
export const runnerApiCallsRouter = createTRPCRouter({
  list: adminProcedure
    .input(z.object({ runId: z.uuid().describe("runs.id (the task id)"), limit: z.int().min(1).max(1000).default(500) }))
    .query(({ input }) => listRunApiCalls(input)),
});
