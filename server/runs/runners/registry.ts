import "server-only";
import { agentRunner } from "../../agent/agent-runner";
import type { Runner } from "../../kernel/runs";

// In-process runners; the default answers every run no binding sends to an external runner
// (the built-in agent, or a stand-in a test registers).
const runners = new Map<string, Runner>([[agentRunner.id, agentRunner]]);
let defaultRunnerId = agentRunner.id;

export function registerRunner(runner: Runner, opts: { default?: boolean } = {}): void {
  runners.set(runner.id, runner);
  if (opts.default) defaultRunnerId = runner.id;
}

/** The in-process runner with this id (an execution taking a run over needs its runner again). */
export function findRunner(id: string): Runner | undefined {
  return runners.get(id);
}

export function defaultRunner(): Runner {
  return runners.get(defaultRunnerId)!;
}
