// Where each file of the old layout lives in the feature rooms (repo-relative, old → new).
// scripts/rooms/move.mjs applies it. A room is server/<feature>/ with its service (service.ts,
// or service/ when it has several use-case files) and its SQL (repository.ts, or repository/).
// Shared kernel types sit in server/kernel/. Tests move with the code they test when they sit
// beside it; others stay and have their imports rewritten.

const S = "server/services/";
const R = "server/repositories/";

export const ROOM_MOVES = [
  // The ground floor: what every room may name.
  ["server/runs/types.ts", "server/kernel/runs.ts"],
  ["server/errors.ts", "server/kernel/errors.ts"],
  ["server/errors.test.ts", "server/kernel/errors.test.ts"],
  [`${R}sql.ts`, "server/kernel/sql.ts"],
  ["server/input-issues.ts", "server/kernel/input-issues.ts"],

  // runs: the engine stays in server/runs/; its use cases and SQL join it.
  [`${S}runs.ts`, "server/runs/service/runs.ts"],
  [`${S}queued-runs.ts`, "server/runs/service/queued-runs.ts"],
  [`${S}conversation-runs.ts`, "server/runs/service/conversation-runs.ts"],
  [`${S}conversation-reconcile.ts`, "server/runs/service/conversation-reconcile.ts"],
  [`${S}client-tool-answers.ts`, "server/runs/service/client-tool-answers.ts"],
  [`${S}stopped-answers.ts`, "server/runs/service/stopped-answers.ts"],
  [`${R}runs.ts`, "server/runs/repository/runs.ts"],
  [`${R}run-events.ts`, "server/runs/repository/run-events.ts"],
  [`${R}run-attempts.ts`, "server/runs/repository/run-attempts.ts"],
  [`${R}run-queue.ts`, "server/runs/repository/run-queue.ts"],
  [`${R}run-messages.ts`, "server/runs/repository/run-messages.ts"],
  [`${R}stopped-answers.ts`, "server/runs/repository/stopped-answers.ts"],
  [`${R}notifications.ts`, "server/runs/repository/notifications.ts"],
  [`${R}conversation.ts`, "server/runs/repository/conversation.ts"],
  [`${R}agent-events.ts`, "server/runs/repository/agent-events.ts"],

  // threads
  [`${S}threads.ts`, "server/threads/service/threads.ts"],
  [`${S}threads.integration-test.ts`, "server/threads/threads.integration-test.ts"],
  [`${S}thread-api.ts`, "server/threads/service/thread-api.ts"],
  [`${S}thread-names.ts`, "server/threads/service/thread-names.ts"],
  [`${S}history.ts`, "server/threads/service/history.ts"],
  [`${S}history.integration-test.ts`, "server/threads/history.integration-test.ts"],
  [`${R}threads.ts`, "server/threads/repository/threads.ts"],
  [`${R}thread-list.ts`, "server/threads/repository/thread-list.ts"],
  [`${R}thread-search.ts`, "server/threads/repository/thread-search.ts"],
  [`${R}thread-search.test.ts`, "server/threads/repository/thread-search.test.ts"],
  [`${R}thread-fork.ts`, "server/threads/repository/thread-fork.ts"],
  [`${R}messages.ts`, "server/threads/repository/messages.ts"],
  [`${R}transcript.ts`, "server/threads/repository/transcript.ts"],

  // attachments
  [`${S}attachments.ts`, "server/attachments/service.ts"],
  [`${S}attachments.integration-test.ts`, "server/attachments/attachments.integration-test.ts"],
  [`${S}attachments-s3.integration-test.ts`, "server/attachments/attachments-s3.integration-test.ts"],
  [`${R}attachments.ts`, "server/attachments/repository.ts"],

  // accounts: users, API keys, the first admin, sign-in attempts
  [`${S}users.ts`, "server/accounts/service/users.ts"],
  [`${S}users.integration-test.ts`, "server/accounts/users.integration-test.ts"],
  [`${S}api-keys.ts`, "server/accounts/service/api-keys.ts"],
  [`${S}first-admin.ts`, "server/accounts/service/first-admin.ts"],
  [`${R}users.ts`, "server/accounts/repository/users.ts"],
  [`${R}api-keys.ts`, "server/accounts/repository/api-keys.ts"],
  [`${R}first-admin.ts`, "server/accounts/repository/first-admin.ts"],
  [`${R}auth-attempts.ts`, "server/accounts/repository/auth-attempts.ts"],
  [`${R}accounts.integration-test.ts`, "server/accounts/accounts.integration-test.ts"],

  // admin: the console's read models
  [`${S}admin-dashboard.ts`, "server/admin/service/dashboard.ts"],
  [`${S}admin-runs.ts`, "server/admin/service/runs.ts"],
  [`${S}admin-threads.ts`, "server/admin/service/threads.ts"],
  [`${S}admin-cursor.ts`, "server/admin/service/cursor.ts"],
  [`${R}admin-dashboard.ts`, "server/admin/repository/dashboard.ts"],
  [`${R}admin-runs.ts`, "server/admin/repository/runs.ts"],
  [`${R}admin-threads.ts`, "server/admin/repository/threads.ts"],

  // agent-api: the Agent API door's sessions and requests
  [`${S}agent-api.ts`, "server/agent-api/service/agent-api.ts"],
  [`${S}agent-api-session.ts`, "server/agent-api/service/session.ts"],
  [`${S}agent-api-images.ts`, "server/agent-api/service/images.ts"],
  [`${S}agent-api.integration-test.ts`, "server/agent-api/agent-api.integration-test.ts"],
  [`${R}agent-api-sessions.ts`, "server/agent-api/repository.ts"],

  // approvals
  [`${S}approvals.ts`, "server/approvals/service.ts"],

  // runner host: external runners, their bindings, audit, storage and artifacts
  [`${S}runners.ts`, "server/runner-host/service.ts"],
  ["server/runner-host/repository.ts", "server/runner-host/repository/runners.ts"],
  ["server/runner-host/platform-repository.ts", "server/runner-host/repository/platform.ts"],
  ["server/runner-host/summary-repository.ts", "server/runner-host/repository/summary.ts"],
  [`${R}runner-audit.ts`, "server/runner-host/repository/audit.ts"],
  [`${R}runner-storage.ts`, "server/runner-host/repository/storage.ts"],
  [`${R}artifacts.ts`, "server/runner-host/repository/artifacts.ts"],

  // agent: the built-in runner
  ["server/agent/agent-repository.ts", "server/agent/repository.ts"],

  // tools: project_cli (modules keep their folders), MCP servers, skills
  [`${S}skills.ts`, "server/tools/service/skills.ts"],
  [`${S}mcp-servers.ts`, "server/tools/service/mcp-servers.ts"],
  ["server/tools/project-cli/skills-repository.ts", "server/tools/repository/skills.ts"],
  [`${R}tool-pool.ts`, "server/tools/repository/tool-pool.ts"],
  [`${R}tool-effects.ts`, "server/tools/repository/tool-effects.ts"],
  [`${R}run-mcp-servers.ts`, "server/tools/repository/run-mcp-servers.ts"],
  ["server/tools/mcp/stats-repository.ts", "server/tools/repository/mcp-stats.ts"],

  // knowledge: its use cases (the console's, the host API's) in service/
  ["server/knowledge/knowledge-bases.ts", "server/knowledge/service/knowledge-bases.ts"],
  ["server/knowledge/documents.ts", "server/knowledge/service/documents.ts"],
  ["server/knowledge/document-uploads.ts", "server/knowledge/service/document-uploads.ts"],
  ["server/knowledge/upload.ts", "server/knowledge/service/upload.ts"],
  ["server/knowledge/retrieve.ts", "server/knowledge/service/retrieve.ts"],
  ["server/knowledge/repository.ts", "server/knowledge/repository/knowledge-bases.ts"],
  ["server/knowledge/retrieve-repository.ts", "server/knowledge/repository/retrieve.ts"],

  // usage: reports and budgets are its service
  ["server/usage/reports.ts", "server/usage/service.ts"],
  [`${R}usage.ts`, "server/usage/repository.ts"],

  // operations: health, scheduled duties, the database's own state
  [`${S}health.ts`, "server/operations/service/health.ts"],
  [`${S}scheduled-duties.ts`, "server/operations/service/scheduled-duties.ts"],
  [`${R}database.ts`, "server/operations/repository.ts"],
];
