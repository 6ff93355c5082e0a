import "server-only";
import { adminProcedure, createTRPCRouter } from "../init";
import { checkHealth } from "../../services/health";

export const healthRouter = createTRPCRouter({
  get: adminProcedure.query(() => checkHealth()),
});
