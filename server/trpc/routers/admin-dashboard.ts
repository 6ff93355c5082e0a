import "server-only";
import { adminProcedure, createTRPCRouter } from "../init";
import { dashboardInput, getDashboard } from "../../admin/service/dashboard";

export const adminDashboardRouter = createTRPCRouter({
  get: adminProcedure.input(dashboardInput).query(({ input }) => getDashboard(input)),
});
