// The project_cli executable (bundled to bin/project-cli.mjs by scripts/build-cli.mjs):
//   node bin/project-cli.mjs <module> <method> [--time-zone <IANA zone>] < input.json
// Who it acts for comes only from the signed credential in its environment, never from
// argv or stdin. It prints one JSON result on stdout and exits non-zero on failure.
import pg from "pg";
import { env } from "@/server/env";
import { verifyToolCredential } from "./credential";
import { ToolError } from "./errors";
import { timeZoneField } from "./fields";
import { projectCliRouter, type CliOutput } from "./router";

const MAX_STDIN_BYTES = 1_000_000;
const STATEMENT_TIMEOUT_MS = 20_000;
const USAGE = "usage: project-cli <module> <method> [--time-zone <IANA zone>] < input.json";
const UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "57P01", "57P03", "08001", "08006"]);

type Args = { module: string; method: string; timeZone: string };

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
      const zone = timeZoneField().safeParse(argv[++i]);
      if (!zone.success) throw new ToolError("USAGE", `--time-zone needs an IANA time zone. ${USAGE}`);
      timeZone = zone.data;
    } else if (arg.startsWith("--")) throw new ToolError("USAGE", `Unknown flag ${arg}. ${USAGE}`);
    else positional.push(arg);
  }
  const [module, method, ...extra] = positional;
  if (!module || !method || extra.length > 0) throw new ToolError("USAGE", USAGE);
  return { module, method, timeZone };
}

async function readInput(): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) throw new ToolError("INPUT_TOO_LARGE", `The JSON input may be at most ${MAX_STDIN_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError("INVALID_JSON_INPUT", "The input on stdin is not valid JSON");
  }
}

async function run(argv: string[]): Promise<CliOutput> {
  const positional = argv.filter((a) => !a.startsWith("--"));
  let args: Args | null = null;
  try {
    args = parseArgs(argv);
    const claims = verifyToolCredential(env.DISPATCH_TOOL_CREDENTIAL, { key: env.DISPATCH_TOOL_KEY });
    const input = await readInput();
    if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
    const db = new pg.Client({ connectionString: env.DATABASE_URL, statement_timeout: STATEMENT_TIMEOUT_MS, application_name: "project-cli" });
    await db.connect();
    try {
      return await projectCliRouter.dispatch({
        ctx: { userId: claims.userId, db, timeZone: args.timeZone },
        module: args.module,
        method: args.method,
        input,
        allowedModules: claims.modules,
      });
    } finally {
      await db.end().catch(() => {});
    }
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

const output = await run(process.argv.slice(2));
process.stdout.write(`${JSON.stringify(output)}\n`);
process.exitCode = output.ok ? 0 : output.error.code === "USAGE" ? 2 : 1;
