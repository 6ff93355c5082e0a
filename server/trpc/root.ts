import "server-only";
import { createCallerFactory, createTRPCRouter } from "./init";
import { usersRouter } from "./routers/users";
import { apiKeysRouter } from "./routers/api-keys";
import { healthRouter } from "./routers/health";

export const appRouter = createTRPCRouter({
  users: usersRouter,
  apiKeys: apiKeysRouter,
  health: healthRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
