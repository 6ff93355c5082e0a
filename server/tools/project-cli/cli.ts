// The project_cli executable (bundled by scripts/build-cli.mjs; bin/project-cli.cjs runs main):
//   node bin/project-cli.cjs <module> <method> [--time-zone <IANA zone>] < input.json
// Who it acts for comes only from the signed credential in its environment, never from
// argv or stdin. It prints one JSON result on stdout and exits non-zero on failure.
import "./zod-jitless";
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { env } from "@/server/env";
import { mintToolCredential, verifyToolCredential } from "./credential";
import { ToolError } from "./errors";
import { timeZoneField } from "./fields";
import { readJsonInput, writeLine } from "./stdio";
import { projectCliRouter, type CliOutput } from "./router";

const STATEMENT_TIMEOUT_MS = 20_000;
const USAGE = "usage: project-cli <module> <method> [--time-zone <IANA zone>] < input.json";
const UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "57P01", "57P03", "08001", "08006"]);

type Args = { module: string; method: string; timeZone: string };

/** The arguments' shape; the zone is only checked (by checkTimeZone) once the connection is under way. */
function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  let timeZone = "UTC";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "--time-zone") {
      const zone = argv[++i];
      if (!zone) throw new ToolError("USAGE", `--time-zone needs an IANA time zone. ${USAGE}`);
      timeZone = zone;
    } else if (arg.startsWith("--")) throw new ToolError("USAGE", `Unknown flag ${arg}. ${USAGE}`);
    else positional.push(arg);
  }
  const [module, method, ...extra] = positional;
  if (!module || !method || extra.length > 0) throw new ToolError("USAGE", USAGE);
  return { module, method, timeZone };
}

function checkTimeZone(value: string): string {
  const zone = timeZoneField().safeParse(value);
  if (!zone.success) throw new ToolError("USAGE", `--time-zone needs an IANA time zone. ${USAGE}`);
  return zone.data;
}

type Call = { args: Args; userId: string; modules: readonly string[]; connectionString: string; input: () => Promise<unknown> };

/** Opens the call's connection and runs it through the router (what run and rehearse share). */
async function perform(call: Call): Promise<CliOutput> {
  const db = new pg.Client({ connectionString: call.connectionString, statement_timeout: STATEMENT_TIMEOUT_MS, application_name: "project-cli" });
  try {
    // Connecting is mostly waiting (a backend starting, authentication round trips). One turn of
    // the event loop sends the startup message; the input is read and checked meanwhile. The
    // connection's failure is kept until it is waited for, so it is never an unhandled rejection.
    const connecting = db.connect().then(
      () => null,
      (err: unknown) => err,
    );
    await new Promise((resolve) => setImmediate(resolve));
    const input = await call.input();
    const timeZone = checkTimeZone(call.args.timeZone);
    const prepared = projectCliRouter.prepare({ module: call.args.module, method: call.args.method, input, allowedModules: call.modules });
    if ("failed" in prepared) return prepared.failed;
    const failed = await connecting;
    if (failed) throw failed;
    return await prepared.run({ userId: call.userId, db, timeZone });
  } finally {
    // Tells the server the session is over (or abandons a connection still being made); the CLI
    // does not wait for the server to close its side.
    void db.end().catch(() => {});
  }
}

async function run(argv: string[]): Promise<CliOutput> {
  const positional = argv.filter((a) => !a.startsWith("--"));
  let args: Args | null = null;
  try {
    args = parseArgs(argv);
    const claims = verifyToolCredential(env.DISPATCH_TOOL_CREDENTIAL, { key: env.DISPATCH_TOOL_KEY });
    if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
    return await perform({ args, userId: claims.userId, modules: claims.modules, connectionString: env.DATABASE_URL, input: () => readJsonInput() });
  } catch (err) {
    const error =
      err instanceof ToolError
        ? err
        : UNAVAILABLE.has(String((err as { code?: unknown }).code))
          ? new ToolError("SERVICE_UNAVAILABLE", "The database is unavailable. Try again shortly.", { retryable: true })
          : new ToolError("INTERNAL", "project_cli failed unexpectedly");
    if (!(err instanceof ToolError)) process.stderr.write(`project-cli: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return { ok: false, module: args?.module ?? positional[0] ?? null, method: args?.method ?? positional[1] ?? null, error: error.toBody() };
  }
}

/** One call: prints the result line and exits (0 ok, 2 usage, 1 any other failure). */
export async function main(argv: string[]): Promise<void> {
  const output = await run(argv);
  process.exitCode = output.ok ? 0 : output.error.code === "USAGE" ? 2 : 1;
  // Exits once the line is handed to the OS rather than when the database has closed the
  // connection, which costs every call a backend's shutdown (a few ms) for nothing.
  writeLine(`${JSON.stringify(output)}\n`, () => process.exit());
}

// The reads a model makes most, with inputs that match their schemas.
const REHEARSED: [module: string, method: string, input: string][] = [
  ["calendar", "read", '{"mode":"day","date":"2026-01-01"}'],
  ["contacts", "read", '{"query":"ana"}'],
  ["memory", "read", "{}"],
];

/**
 * Calls against a stand-in database (rehearsal-postgres.ts: every query finds nothing), run by
 * the build before it stores V8's code cache (write-code-cache.ts), so the functions a call runs
 * are in the cache compiled rather than compiled again by every call.
 */
export async function rehearse(connectionString: string): Promise<void> {
  const key = randomBytes(32).toString("base64url");
  const modules = REHEARSED.map(([module]) => module);
  const claims = verifyToolCredential(mintToolCredential({ userId: randomUUID(), runId: "rehearsal", modules, key }), { key });
  for (const [module, method, input] of REHEARSED) {
    const args = parseArgs(["--time-zone", "UTC", "--", module, method]);
    const output = await perform({ args, userId: claims.userId, modules: claims.modules, connectionString, input: async () => JSON.parse(input) });
    if (!output.ok) throw new Error(`Rehearsing ${module}.${method} failed: ${JSON.stringify(output.error)}`);
    JSON.stringify(output);
  }
}
