import "server-only";
import { PROJECT_CLI_MODULE_DEFINITIONS } from "./modules/registry";

// The words the tool's description, its argument schema, the agent's prompt and the built-in
// runner's manifest use for what project_cli reaches, read off the module registry.

function inWords(items: readonly string[], conjunction: "and" | "or"): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)}`;
}

/** "calendar, contacts and memory". */
export const PROJECT_CLI_SUBJECTS = inWords(
  PROJECT_CLI_MODULE_DEFINITIONS.map((m) => m.subject),
  "and",
);

/** "calendar, contacts or memory". */
export const PROJECT_CLI_MODULE_CHOICE = inWords(
  PROJECT_CLI_MODULE_DEFINITIONS.map((m) => m.name),
  "or",
);

/** Each module's rules for the agent's system prompt, in registry order. */
export const PROJECT_CLI_PROMPT_RULES: readonly string[] = PROJECT_CLI_MODULE_DEFINITIONS.flatMap((m) => m.promptRules);
