import "server-only";
import { PROJECT_CLI_MODULE_DEFINITIONS } from "./modules/registry";

// The words the agent's prompt and the built-in runner's manifest use for what project_cli
// reaches, read off the module registry.

/** "calendar, contacts and memory". */
function inWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Every module's subject in words: "calendar, contacts and memory". */
export const PROJECT_CLI_SUBJECTS = inWords(PROJECT_CLI_MODULE_DEFINITIONS.map((m) => m.subject));

/** The subjects of some skills (module names), in words. */
export function subjectsOf(skills: readonly string[]): string {
  return inWords(PROJECT_CLI_MODULE_DEFINITIONS.filter((m) => skills.includes(m.name)).map((m) => m.subject));
}
