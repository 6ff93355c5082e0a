import "server-only";
import { adminProcedure, createTRPCRouter } from "../init";
import { getRunDetail, listRunEvents, listRunEventsInput, listRuns, listRunsInput, runIdInput } from "../../admin/service/runs";
import { z } from "zod";
import { adminApprovalInbox, listRunApprovals } from "../../approvals/service";

export const adminRunsRouter = createTRPCRouter({
  list: adminProcedure.input(listRunsInput).query(({ input }) => listRuns(input)),
  get: adminProcedure.input(runIdInput).query(({ input }) => getRunDetail(input)),
  events: adminProcedure.input(listRunEventsInput).query(({ input }) => listRunEvents(input)),
  approvals: adminProcedure.input(runIdInput).query(({ input }) => listRunApprovals({ runId: input.id })),
  /** Requests waiting across users (docs/approvals.md): read-only, an admin does not decide for them here. */
  waitingApprovals: adminProcedure.input(z.object({ locale: z.string().max(35).optional() })).query(({ input }) => adminApprovalInbox(input)),
});
