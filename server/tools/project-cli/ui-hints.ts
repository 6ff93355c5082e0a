import "server-only";
import { logger } from "@/server/logger";
import { mcpResultHints } from "../mcp/results";
import { findAction } from "./actions";
import { uiHintsSchema } from "./cards";
import type { UiHints } from "./module";
import type { CliOutput } from "./router";

// ui_hints come from here and nowhere else: each method's own builder, kept beside its module
// (modules/<name>/module.ts); a method without one gets no card.

const builderOf = (module: string, method: string) => findAction(module, method)?.hints;

/** ui_hints for a successful action, or null when the action has no card. */
export function successHints(module: string, method: string, data: unknown): UiHints | null {
  return normalize(builderOf(module, method)?.(data) ?? null);
}

/**
 * An error card for a failed action that has cards. Input the model got wrong is left
 * out: the model corrects it on its own and the user has nothing to act on.
 */
export function failureHints(module: string | null, method: string | null, error: { code: string; message: string; retryable?: boolean }): UiHints | null {
  if (!module || !method || !builderOf(module, method) || error.code === "INVALID_ACTION_INPUT") return null;
  return normalize({ kind: "error", module, method, code: error.code, message: error.message, ...(error.retryable ? { retryable: true } : {}) });
}

/** ui_hints for a call of an MCP server's tool: its result card, or the error card (not for input the model got wrong). */
export function mcpHints(outcome: CliOutput): UiHints | null {
  const { module, method } = outcome;
  if (!module || !method) return null;
  if (outcome.ok) return normalize(mcpResultHints(module, method, outcome.data));
  const { error } = outcome;
  if (error.code === "INVALID_ACTION_INPUT") return null;
  return normalize({ kind: "error", module, method, code: error.code, message: error.message, ...(error.retryable ? { retryable: true } : {}) });
}

// Strips undefined keys and proves the hints match the schema the compiler and history trust.
function normalize(hints: UiHints | null): UiHints | null {
  if (!hints) return null;
  const parsed = uiHintsSchema.safeParse(JSON.parse(JSON.stringify(hints)));
  if (parsed.success) return parsed.data;
  logger.warn({ kind: hints.kind, issues: parsed.error.issues.slice(0, 5) }, "project_cli built invalid ui_hints; dropped");
  return null;
}
