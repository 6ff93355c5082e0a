// The project_cli executable (bundled by scripts/build-cli.mjs into bin/project-cli.cjs):
//   node bin/project-cli.cjs [--time-zone <IANA zone>] [--] <module> <method> < input.json
// It holds no database address and no signing key. Its environment carries the run's controlled
// credential (DISPATCH_TOOL_CREDENTIAL) and names the tool gateway of the server that started it
// (DISPATCH_TOOL_GATEWAY, gateway.ts). It reads the input, hands the call and the credential to
// the gateway, which checks the credential, the whitelist and the method's schema and runs the
// handler, and prints the one JSON result. Who it acts for comes only from the credential, never
// from argv or stdin. Exit 0 ok, 2 usage, 1 any other failure.
import net from "node:net";
import { ToolError } from "./errors";
import { readJsonInput, writeLine } from "./stdio";
import type { CliOutput } from "./router";

const USAGE = "usage: project-cli [--time-zone <IANA zone>] [--] <module> <method> < input.json";
const MAX_ANSWER_BYTES = 8_000_000;

type Args = { module: string; method: string; timeZone: string };

/** The arguments' shape; the gateway checks the zone (ICU is warm there, not in a fresh process). */
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

/** The gateway's answer to one request; connecting starts at once, the request goes when `send` is called. */
function openGateway(address: string): { send(request: object): void; cancel(): void; answer: Promise<CliOutput> } {
  const socket = net.connect(address);
  const answer = new Promise<CliOutput>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ANSWER_BYTES) return void chunks.push(chunk);
      socket.destroy();
      reject(new ToolError("OUTPUT_TOO_LARGE", "project_cli returned more data than a tool result may hold"));
    });
    socket.on("end", () => {
      const output = parseAnswer(Buffer.concat(chunks).toString("utf8"));
      if (output) resolve(output);
      else reject(new Error("The tool gateway's answer is not a project_cli result"));
    });
    socket.on("error", (err: Error & { code?: string }) =>
      reject(new ToolError("SERVICE_UNAVAILABLE", `The tool gateway is not answering (${err.code ?? "connection failed"}). Try again shortly.`, { retryable: true })),
    );
  });
  // Its failure is kept until it is waited for, so it is never an unhandled rejection.
  answer.catch(() => {});
  return { send: (request) => socket.end(JSON.stringify(request)), cancel: () => socket.destroy(), answer };
}

function parseAnswer(text: string): CliOutput | null {
  try {
    const output = JSON.parse(text) as CliOutput;
    return typeof output === "object" && output !== null && typeof output.ok === "boolean" ? output : null;
  } catch {
    return null;
  }
}

async function run(argv: string[]): Promise<CliOutput> {
  const positional = argv.filter((a) => !a.startsWith("--"));
  let args: Args | null = null;
  try {
    args = parseArgs(argv);
    const credential = process.env.DISPATCH_TOOL_CREDENTIAL;
    if (!credential) throw new ToolError("CREDENTIAL_MISSING", "No tool credential was provided in the environment");
    const address = process.env.DISPATCH_TOOL_GATEWAY;
    if (!address) throw new ToolError("TOOL_UNAVAILABLE", "No tool gateway was named in the environment (DISPATCH_TOOL_GATEWAY)");
    // The connection opens while the input is read.
    const gateway = openGateway(address);
    let input: unknown;
    try {
      input = await readJsonInput();
    } catch (err) {
      gateway.cancel();
      throw err;
    }
    gateway.send({ credential, module: args.module, method: args.method, time_zone: args.timeZone, input });
    return await gateway.answer;
  } catch (err) {
    const error = err instanceof ToolError ? err : new ToolError("INTERNAL", "project_cli failed unexpectedly");
    if (!(err instanceof ToolError)) process.stderr.write(`project-cli: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return { ok: false, module: args?.module ?? positional[0] ?? null, method: args?.method ?? positional[1] ?? null, error: error.toBody() };
  }
}

/** One call: prints the result line and exits (0 ok, 2 usage, 1 any other failure). */
export async function main(argv: string[]): Promise<void> {
  const output = await run(argv);
  process.exitCode = output.ok ? 0 : output.error.code === "USAGE" ? 2 : 1;
  // Exits once the line is handed to the OS.
  writeLine(`${JSON.stringify(output)}\n`, () => process.exit());
}
