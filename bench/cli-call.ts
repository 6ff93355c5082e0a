// Times project_cli calls made the way the agent makes them: execProjectCli spawns the
// bundled CLI as a child process with a fresh credential, and this process's tool gateway
// checks and runs the call. Prints the durations (ms) as JSON.
// Runs with the server's environment and the react-server condition.
//   node --conditions=react-server --import tsx bench/cli-call.ts --user ID --calls N
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { mintToolCredential } from "@/server/tools/project-cli/credential";
import { execProjectCli } from "@/server/tools/project-cli/run-cli";

const { values } = parseArgs({ options: { user: { type: "string" }, calls: { type: "string" }, warmup: { type: "string", default: "3" } } });
const userId = values.user!;

async function call(): Promise<number> {
  const credential = mintToolCredential({ userId, runId: "bench", modules: ["calendar", "contacts", "memory"], toolCall: { id: `call_${randomUUID()}` } });
  const started = performance.now();
  const out = await execProjectCli({ module: "calendar", method: "read", input: { mode: "day", date: "2026-03-15" }, credential, timeZone: "UTC", timeoutMs: 30_000 });
  const ms = performance.now() - started;
  if (!out.ok) throw new Error(`project_cli failed: ${JSON.stringify(out.error)}`);
  return ms;
}

for (let i = 0; i < Number(values.warmup); i++) await call();
const times: number[] = [];
for (let i = 0; i < Number(values.calls); i++) times.push(await call());
process.stdout.write(`${JSON.stringify(times)}\n`);
process.exit(0);
