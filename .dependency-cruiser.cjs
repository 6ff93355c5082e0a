// The layering ARCHITECTURE.md draws, checked by `npm run lint` (depcruise). Arrows point down:
//   edge (app/, server/http, server/trpc) → protocols → services
//     → engine (runs), agent, runner-host, tools, knowledge, storage, ui-schema
//     → repositories → database
// A rule names the arrow it forbids and why. Type-only imports are allowed across layers where a
// rule says so: they vanish at run time and let a lower layer name a shape it returns.
// Tests and their fixtures set up what they test (a database row, a server): they may reach anywhere.
const TEST_CODE = "(\\.(integration-)?test\\.tsx?$|^test/|/test-(support|fixtures)\\.ts$)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "database-only-in-repositories",
      comment: "Only repositories talk to the database: server/db.ts is imported by server/repositories/** and files named repository.ts or *-repository.ts.",
      severity: "error",
      from: { pathNot: ["^server/repositories/", "repository\\.ts$", "^server/db\\.ts$", TEST_CODE] },
      to: { path: "^server/db\\.ts$" },
    },
    {
      name: "pg-only-in-repositories",
      comment: "The pg driver is used as a value only by repositories and server/db.ts (types may be named anywhere).",
      severity: "error",
      from: { path: "^(server|app|components)/", pathNot: ["^server/repositories/", "repository\\.ts$", "^server/db\\.ts$", TEST_CODE] },
      to: { path: "node_modules/pg/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-prisma-runtime",
      comment: "One data-access style (pg). Prisma is the schema and its generated model types, never a client at run time.",
      severity: "error",
      from: { path: "^(server|app|components|scripts)/" },
      to: { path: ["^server/generated/prisma/client\\.ts$", "node_modules/@prisma/(client|adapter-pg)/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "server-never-imports-app",
      comment: "app/ is the edge's thin shell over server/; the reverse arrow runs up.",
      severity: "error",
      from: { path: "^server/" },
      to: { path: "^app/" },
    },
    {
      name: "no-ui-in-server",
      comment: "The server does not import React components.",
      severity: "error",
      from: { path: "^server/" },
      to: { path: "^components/" },
    },
    {
      name: "below-the-edge-knows-no-http",
      comment: "Services, the engine, the agent, runner host, tools, storage, knowledge and repositories know nothing of Next, tRPC or the HTTP edge: the edge passes them what they need.",
      severity: "error",
      from: { path: "^server/(services|queue|runs|agent|runner-host|tools|storage|knowledge|ui-schema|repositories|protocols|usage|limits|telemetry|approvals)/", pathNot: TEST_CODE },
      to: { path: ["^server/(http|trpc)/", "node_modules/next/", "node_modules/@trpc/"] },
    },
    {
      name: "the-edge-goes-through-services",
      comment: "Routes, endpoints and tRPC procedures call services; they never query repositories themselves.",
      severity: "error",
      from: { path: "^(app|server/http|server/trpc)/", pathNot: TEST_CODE },
      to: { path: ["^server/repositories/", "repository\\.ts$", "^server/db\\.ts$"] },
    },
    {
      name: "protocols-are-pure",
      comment: "server/protocols holds wire schemas, validators and encoders: no services, engine, storage or database.",
      severity: "error",
      from: { path: "^server/protocols/", pathNot: TEST_CODE },
      to: { path: "^server/(services|runs|agent|runner-host|tools|storage|knowledge|repositories|auth|models|approvals|db\\.ts)", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "below-services-never-call-services",
      comment: "Services (and server/queue, which starts queued runs through them) orchestrate the layers below them; a lower layer calling one runs back up.",
      severity: "error",
      from: { path: "^server/(runs|agent|runner-host|tools|storage|knowledge|ui-schema|repositories|approvals)/", pathNot: TEST_CODE },
      to: { path: "^server/(services|queue)/" },
    },
    {
      name: "repositories-are-the-bottom",
      comment: "Repositories depend on the database and shared types only.",
      severity: "error",
      from: { path: "^server/repositories/", pathNot: TEST_CODE },
      to: { path: "^server/(auth|runs|agent|runner-host|tools|knowledge|storage|ui-schema|approvals)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "tools-stand-alone",
      comment: "project_cli is used by the agent and the runner host; it imports neither.",
      severity: "error",
      from: { path: "^server/tools/", pathNot: TEST_CODE },
      to: { path: "^server/(agent|runner-host|runs)/" },
    },
    {
      name: "approvals-sit-below-the-runners",
      comment: "server/approvals (the approval gate, decisions, cards) is used by the built-in agent, the runner host and services; it imports none of them, nor the engine.",
      severity: "error",
      from: { path: "^server/approvals/", pathNot: TEST_CODE },
      to: { path: "^server/(agent|runner-host|runs)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "models-are-providers-only",
      comment: "server/models (model providers, the chat-completions reader, the offline demo model) is used by the agent, the runner host and services; it imports only shared helpers and protocols below it.",
      severity: "error",
      from: { path: "^server/models/", pathNot: TEST_CODE },
      to: { path: "^server/", pathNot: ["^server/models/", "^server/(lib|protocols)/", "^server/(env|logger|errors|constants|input-issues)\\.ts$"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "agent-and-runner-host-are-siblings",
      comment: "The built-in agent and the runner host are two kinds of runner; shared helpers live below both.",
      severity: "error",
      from: { path: "^server/(agent|runner-host)/", pathNot: TEST_CODE },
      to: { path: "^server/(agent|runner-host)/", pathNot: "^server/$1/" },
    },
    {
      name: "no-circular",
      comment: "A cycle makes two modules one; break it by moving the shared part down.",
      severity: "error",
      from: { path: "^server/" },
      // Type-only cycles too: they cost nothing at run time, but they make two files one to a reader.
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^server/generated/", "^\\.next", "node_modules"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
