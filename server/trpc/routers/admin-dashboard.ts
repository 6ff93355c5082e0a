import "server-only";
import { adminProcedure, createTRPCRouter } from "../init";
import { dashboardInput, getDashboard } from "../../services/admin-dashboard";

export const adminDashboardRouter = createTRPCRouter({
  get: adminProcedure.input(dashboardInput).query(({ input }) => getDashboard(input)),
});
