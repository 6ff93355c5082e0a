import "server-only";
import { env } from "@/server/env";
import { PROJECT_CLI_MODULES } from "./actions";

/**
 * The modules a run may use unless its caller narrows them: PROJECT_CLI_MODULES from the
 * environment (comma-separated) or, unset, every registered module. A name no module has is
 * a configuration mistake that would fail every call, so it is refused at once.
 */
export function resolveModuleAllowList(configured: string | undefined): readonly string[] {
  if (configured === undefined) return PROJECT_CLI_MODULES;
  const names = configured.split(",").map((m) => m.trim()).filter(Boolean);
  const unknown = names.filter((name) => !PROJECT_CLI_MODULES.includes(name));
  if (unknown.length > 0) {
    throw new Error(`PROJECT_CLI_MODULES names unknown project_cli modules: ${unknown.join(", ")} (known: ${PROJECT_CLI_MODULES.join(", ")})`);
  }
  return names;
}

/** Evaluated on first import, which start-up does, so a wrong value stops the server with its reason. */
export const DEFAULT_ALLOWED_MODULES: readonly string[] = resolveModuleAllowList(env.PROJECT_CLI_MODULES);
