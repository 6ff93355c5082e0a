import "server-only";
import type { MethodDefinition } from "./module";
import { PROJECT_CLI_MODULE_DEFINITIONS } from "./modules/registry";

// The whitelist: every (module, method) project_cli can run, its strict input schema and
// its handler, read off the module registry. Nothing else is reachable, whatever the model
// asks for.

export type ActionDefinition = MethodDefinition & { module: string; method: string };

export const PROJECT_CLI_ACTIONS: readonly ActionDefinition[] = PROJECT_CLI_MODULE_DEFINITIONS.flatMap((definition) =>
  Object.entries(definition.methods).map(([name, spec]) => ({
    module: definition.name,
    method: name,
    kind: spec.kind,
    handler: spec.handler,
    example: spec.example,
    ...(spec.hints ? { hints: spec.hints } : {}),
    ...(spec.pitfalls ? { pitfalls: spec.pitfalls } : {}),
    ...(spec.involvesOthers ? { involvesOthers: spec.involvesOthers } : {}),
    ...(spec.reach ? { reach: spec.reach } : {}),
    ...(spec.asks ? { asks: spec.asks } : {}),
    ...(spec.shows ? { shows: spec.shows } : {}),
    // A getter, so the method's schema is still built on first use.
    get input() {
      return spec.input;
    },
  })),
);

/** Every registered module's name, in registry order. */
export const PROJECT_CLI_MODULES: readonly string[] = PROJECT_CLI_MODULE_DEFINITIONS.map((m) => m.name);

const BY_NAME: ReadonlyMap<string, ActionDefinition> = new Map(PROJECT_CLI_ACTIONS.map((a) => [`${a.module}.${a.method}`, a]));

/** The registered action module.method, if there is one. */
export function findAction(module: string, method: string): ActionDefinition | undefined {
  return BY_NAME.get(`${module}.${method}`);
}
