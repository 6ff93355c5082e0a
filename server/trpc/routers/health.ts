import "server-only";
import { adminProcedure, createTRPCRouter } from "../init";
import { checkHealth } from "../../operations/service/health";

export const healthRouter = createTRPCRouter({
  get: adminProcedure.query(() => checkHealth()),
});
