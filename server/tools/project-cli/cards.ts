import "server-only";
import { z } from "zod";
import { body, caption, compileCard, resolveLocale, title, type CompileUiHintsOptions } from "@/server/ui-schema/compile";
import { languageOf, messagesFor, type UiMessages } from "@/server/ui-schema/messages";
import type { UiNodeInput, UiSchema } from "@/server/ui-schema/schema";
import { mcpResultCard } from "../mcp/cards";
import { card, hintKind, hintText, type CardDefinition, type UiHints } from "./module";
import { PROJECT_CLI_MODULE_DEFINITIONS } from "./modules/registry";

// The codec from ui_hints (domain facts) to UiSchema (presentation): every module's card kinds
// plus the error card every action with cards shares. It owns every word on the card, so hints
// stay language-free and old rows replay in today's wording.

const errorHintSchema = z
  .strictObject({
    kind: hintKind("error"),
    module: hintText().optional().describe("project_cli module that failed, e.g. calendar"),
    method: hintText().optional().describe("Method that failed, e.g. read"),
    code: hintText().describe("Machine error code, e.g. INVALID_ACTION_INPUT"),
    message: hintText().describe("What went wrong, safe to show to the user"),
    retryable: z.boolean().optional().describe("True when trying again may succeed"),
  })
  .describe("A failed tool call");

const errorCard = card<typeof errorHintSchema, null>({ en: null, zh: null }, {
  schema: errorHintSchema,
  status: () => "error",
  build: (hints, _words, m: UiMessages): UiNodeInput[] => {
    const operation = hints.module ? [hints.module, hints.method].filter(Boolean).join(".") : undefined;
    const nodes: UiNodeInput[] = [
      title(m.errorTitle(operation)),
      { type: "badge", label: m.errorBadge, status: "error" },
      body(hints.message),
      { type: "key_value", items: [{ label: m.errorCode, value: hints.code }] },
    ];
    if (hints.retryable) nodes.push(caption(m.retryable));
    return nodes;
  },
});

const CARDS: ReadonlyMap<string, CardDefinition> = new Map(
  [...PROJECT_CLI_MODULE_DEFINITIONS.flatMap((m) => m.cards), mcpResultCard, errorCard].map((c) => [c.kind, c]),
);

/** Every ui_hints kind a module can write, an MCP tool's result card, and the error card. */
export const uiHintsSchema = z.discriminatedUnion(
  "kind",
  [...CARDS.values()].map((c) => c.schema) as unknown as [z.ZodObject<{ kind: z.ZodLiteral<string> }>],
) as unknown as z.ZodType<UiHints>;

/** Compiles ui_hints into a schema-checked UiSchema 2.0 document; throws only on a compiler bug. */
export function compileUiHints(hints: UiHints, opts: CompileUiHintsOptions = {}): UiSchema {
  const definition = CARDS.get(hints.kind);
  if (!definition) throw new Error(`compileUiHints has no card for ${hints.kind}`);
  const locale = resolveLocale(opts.locale);
  return compileCard({
    kind: hints.kind,
    locale,
    status: definition.status(hints),
    meta: opts.meta,
    children: definition.build(hints, languageOf(locale), messagesFor(locale)),
  });
}

/**
 * For ui_hints read back from storage, which may predate today's schema: null when they
 * no longer parse, so history still loads and the message simply has no card.
 */
export function compileStoredUiHints(raw: unknown, opts: CompileUiHintsOptions = {}): UiSchema | null {
  if (raw === null || raw === undefined) return null;
  const parsed = uiHintsSchema.safeParse(raw);
  if (!parsed.success) return null;
  try {
    return compileUiHints(parsed.data, opts);
  } catch {
    return null;
  }
}
