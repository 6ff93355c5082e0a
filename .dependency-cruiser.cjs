// The feature rooms ARCHITECTURE.md draws, checked by `npm run lint` (depcruise). A room is
// server/<feature>/: its service (service.ts or service/) is what the edge and other rooms call,
// its repository (repository.ts or repository/) holds its SQL and is its own. Arrows point down:
//   edge (app/, server/http, server/trpc) → protocols → rooms' services
//     → engine (runs), agent, runner host, tools, knowledge, approvals → rooms' repositories → database
//   and every floor may stand on the ground: server/kernel (shared types, errors, SQL helpers), lib, net.
// A rule names the arrow it forbids and why. Type-only imports are allowed across layers where a
// rule says so: they vanish at run time and let a lower layer name a shape it returns.
// Tests and their fixtures set up what they test (a database row, a server): they may reach anywhere.
const TEST_CODE = "(\\.(integration-)?test\\.tsx?$|^test/|/test-(support|fixtures)\\.ts$)";
/** The feature rooms: each has a service and a repository of its own. */
const ROOMS = "accounts|admin|agent-api|agent|approvals|attachments|branches|files|knowledge|mcp-serve|oauth|operations|run-archive|runner-host|runs|schedules|thread-state|threads|tools|usage|webhooks";
const REPOSITORY = "/repository(\\.ts$|/)";
const SERVICE = "/service(\\.ts$|/)";
const EDGE = "^(app|server/http|server/trpc)/";
/** Doors that are not HTTP routes of app/: the runner host's API for external runners, and start-up. */
const OTHER_DOORS = ["^server/runner-host/api/", "^server/start-up\\.ts$"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "database-only-in-repositories",
      comment: "Only repositories talk to the database: server/db.ts is imported by a room's repository.ts or repository/ only.",
      severity: "error",
      from: { pathNot: [REPOSITORY, "^server/db\\.ts$", TEST_CODE] },
      to: { path: "^server/db\\.ts$" },
    },
    {
      name: "replicas-behind-db",
      comment: "Read replicas are one place of the database layer: repositories reach them through server/db.ts's readPool, never directly.",
      severity: "error",
      from: { pathNot: ["^server/db\\.ts$", TEST_CODE] },
      to: { path: "^server/db-replicas\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "pg-only-in-repositories",
      comment: "The pg driver is used as a value only by repositories and server/db.ts (types may be named anywhere).",
      severity: "error",
      from: { path: "^(server|app|components)/", pathNot: [REPOSITORY, "^server/db(-replicas)?\\.ts$", TEST_CODE] },
      to: { path: "node_modules/pg/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "a-rooms-repository-is-its-own",
      comment: "A room's SQL is reached through its service: code of another room (or of no room) never imports it. Repositories may share mappings with each other; server/queue, the runs room's job runner, opens the run queue's pool.",
      severity: "error",
      from: { path: "^server/([^/]+)/", pathNot: [REPOSITORY, "^server/queue/", TEST_CODE] },
      to: { path: `^server/(${ROOMS})${REPOSITORY}`, pathNot: "^server/$1/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "the-edge-goes-through-services",
      comment: "Routes, endpoints and tRPC procedures call rooms' services; they never query repositories themselves.",
      severity: "error",
      from: { path: EDGE, pathNot: TEST_CODE },
      to: { path: [REPOSITORY, "^server/db\\.ts$"] },
    },
    {
      name: "no-old-homes",
      comment: "server/services and server/repositories are gone: a use case lives in its room's service, its SQL in the room's repository (scripts/rooms/table.mjs says where each went).",
      severity: "error",
      from: {},
      to: { path: "^server/(services|repositories)/" },
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
      comment: "Rooms, the engine, storage, protocols and the ground floor know nothing of Next, tRPC or the HTTP edge: the edge passes them what they need.",
      severity: "error",
      from: { path: `^server/(${ROOMS}|kernel|lib|net|queue|storage|ui-schema|protocols|limits|telemetry|models)/`, pathNot: TEST_CODE },
      to: { path: ["^server/(http|trpc)/", "node_modules/next/", "node_modules/@trpc/"] },
    },
    {
      name: "protocols-are-pure",
      comment: "server/protocols holds wire schemas, validators and encoders: no rooms, storage or database.",
      severity: "error",
      from: { path: "^server/protocols/", pathNot: TEST_CODE },
      to: { path: `^server/(${ROOMS}|storage|auth|models|db\\.ts)`, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "only-the-edge-and-services-call-services",
      comment: "Services orchestrate the engine, the runners, tools and repositories; code below them (a room's engine parts, its repository, the ground floor) calling a service runs back up. server/queue starts queued runs through the runs service.",
      severity: "error",
      from: { path: "^server/", pathNot: [EDGE, ...OTHER_DOORS, SERVICE, "^server/queue/", "^server/mcp-serve/", TEST_CODE] },
      to: { path: SERVICE },
    },
    {
      name: "repositories-are-the-bottom",
      comment: "Repositories depend on the database, the ground floor and other repositories only.",
      severity: "error",
      from: { path: REPOSITORY, pathNot: TEST_CODE },
      to: { path: `^server/(${ROOMS}|auth|storage|ui-schema|queue|models)/`, pathNot: REPOSITORY, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "the-ground-floor-stands-alone",
      comment: "server/kernel and server/lib are what every floor may name; they import nothing above them.",
      severity: "error",
      from: { path: "^server/(kernel|lib)/", pathNot: TEST_CODE },
      to: { path: "^server/", pathNot: ["^server/(kernel|lib)/", "^server/(env|logger|db)\\.ts$", "^server/generated/"], dependencyTypesNot: ["type-only"] },
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
      from: { path: "^server/approvals/", pathNot: [SERVICE, TEST_CODE] },
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
