import "server-only";
import { createCallerFactory, createTRPCRouter } from "./init";
import { usersRouter } from "./routers/users";
import { apiKeysRouter } from "./routers/api-keys";
import { healthRouter } from "./routers/health";
import { threadsRouter } from "./routers/threads";
import { adminRunsRouter } from "./routers/admin-runs";
import { adminThreadsRouter } from "./routers/admin-threads";
import { adminDashboardRouter } from "./routers/admin-dashboard";
import { runnersRouter } from "./routers/runners";
import { runnerApiCallsRouter } from "./routers/runner-api-calls";
import { knowledgeRouter } from "./routers/knowledge";
import { usageRouter } from "./routers/usage";
import { approvalPolicyRouter } from "./routers/approval-policy";
import { skillsRouter } from "./routers/skills";
import { mcpClientsRouter } from "./routers/mcp-clients";
import { mcpServersRouter } from "./routers/mcp-servers";
import { webhooksRouter } from "./routers/webhooks";
import { schedulesRouter } from "./routers/schedules";

export const appRouter = createTRPCRouter({
  users: usersRouter,
  apiKeys: apiKeysRouter,
  health: healthRouter,
  threads: threadsRouter,
  adminRuns: adminRunsRouter,
  adminThreads: adminThreadsRouter,
  adminDashboard: adminDashboardRouter,
  runners: runnersRouter,
  runnerApiCalls: runnerApiCallsRouter,
  knowledge: knowledgeRouter,
  usage: usageRouter,
  approvalPolicy: approvalPolicyRouter,
  skills: skillsRouter,
  mcpClients: mcpClientsRouter,
  mcpServers: mcpServersRouter,
  webhooks: webhooksRouter,
  schedules: schedulesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
