import "server-only";
import type { Runner } from "../types";
import { echoRunner } from "./echo";

// The runners this instance can execute, by id. The default handles runs that name none.
const runners = new Map<string, Runner>([[echoRunner.id, echoRunner]]);
let defaultRunnerId = echoRunner.id;

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
