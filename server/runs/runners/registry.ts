import "server-only";
import { agentRunner } from "../../agent/agent-runner";
import type { Runner } from "../types";

// The runners this instance can execute, by id. The default handles runs that name none.
const runners = new Map<string, Runner>([[agentRunner.id, agentRunner]]);
let defaultRunnerId = agentRunner.id;

export function registerRunner(runner: Runner, opts: { default?: boolean } = {}): void {
  runners.set(runner.id, runner);
  if (opts.default) defaultRunnerId = runner.id;
}

export function getRunner(id: string): Runner | undefined {
  return runners.get(id);
}

export function defaultRunner(): Runner {
  return runners.get(defaultRunnerId)!;
}
