// Shared start-up for the example runners: tests import a start function (port 0, returns
// {url, close}); `tsx examples/runners/<name>.ts` runs the same function as a process.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RunnerDefinition } from "../../sdk/runner/define-runner";
import { createRunnerServer } from "../../sdk/runner/server";

export type StartedRunner = { url: string; close(): Promise<void> };
export type StartOptions = {
  secret: string;
  port?: number;
  host?: string;
  /** The Dispatch server the runner calls back (host API); only runners that use it need it. */
  hostUrl?: string;
};

export async function startRunners(opts: StartOptions & { runners: RunnerDefinition[] }): Promise<StartedRunner> {
  const server = createRunnerServer({ secret: opts.secret, runners: opts.runners, hostUrl: opts.hostUrl });
  const url = await server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1");
  return { url, close: () => server.close() };
}

/**
 * When `moduleUrl` is the script node was started with, starts it from PORT (default: any
 * free port), HOST, RUNNER_SECRET and HOST_URL and prints the base URL as the only line on stdout.
 */
export function runIfMain(moduleUrl: string, start: (opts: StartOptions) => Promise<StartedRunner>): void {
  const script = process.argv[1];
  if (!script || path.resolve(script) !== fileURLToPath(moduleUrl)) return;
  const secret = process.env.RUNNER_SECRET;
  if (!secret) {
    console.error("Set RUNNER_SECRET to the secret you will register with the host (npm run admin -- runner:register --url URL --secret S)");
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 0);
  start({ secret, port, host: process.env.HOST ?? "127.0.0.1", hostUrl: process.env.HOST_URL }).then(
    (runner) => {
      console.log(runner.url);
      const stop = () => void runner.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
