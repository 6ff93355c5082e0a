import "server-only";
import { MAX_CHILDREN, parseUiSchema, type UiNodeInput, type UiSchema, type UiSchemaMeta, type UiStatus } from "./schema";
import type { UiMessages } from "./messages";

// The generic half of the ui_hints codec: a card's document (version, locale, status, theme)
// and the small nodes every card is made of. What a card says is decided by the tool module
// that owns the hint kind; this file only knows UiSchema.

export type CompileUiHintsOptions = {
  /** BCP 47 tag for the card's words and date formats; English when absent or invalid. */
  locale?: string;
  meta?: UiSchemaMeta;
};

type Node = UiNodeInput;

/** Longest text of a card's short fields (names, ids, titles). */
export const SHORT = 200;
/** Longest text of a card's prose. */
export const LONG = 4_000;
const DEFAULT_LOCALE = "en";

/** The canonical locale a card is written in: the requested one when valid, else English. */
export function resolveLocale(locale: string | undefined): string {
  if (!locale) return DEFAULT_LOCALE;
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? DEFAULT_LOCALE;
  } catch {
    return DEFAULT_LOCALE;
  }
}

/** A schema-checked UiSchema 2.0 card around `children`; throws only on a compiler bug. */
export function compileCard(opts: { kind: string; locale: string; status: UiStatus; meta?: UiSchemaMeta; children: Node[] }): UiSchema {
  const parsed = parseUiSchema({
    version: "2.0",
    locale: opts.locale,
    status: opts.status,
    theme: "default",
    ...(opts.meta ? { meta: opts.meta } : {}),
    root: { type: "stack", appearance: "card", children: opts.children },
  });
  if (!parsed.success) throw new Error(`compileUiHints produced an invalid UiSchema for ${opts.kind}: ${parsed.error}`);
  return parsed.data;
}

export function title(content: string): Node {
  return { type: "text", role: "title", content: clip(content, LONG) };
}

export function body(content: string): Node {
  return { type: "text", role: "body", content: clip(content, LONG) };
}

export function caption(content: string): Node {
  return { type: "text", role: "caption", content: clip(content, LONG) };
}

/** "3 events", or "Showing 100 of 240" when the card keeps fewer than exist. */
export function countCaption(shown: number, total: number, count: (n: number) => string, m: UiMessages): string {
  const kept = Math.min(shown, MAX_CHILDREN);
  return kept < total ? m.showing(kept, total) : count(total);
}

/** preferred_meeting_time → "Preferred meeting time". */
export function humanizeKey(key: string): string {
  const spaced = key.replace(/[_-]+/g, " ").trim();
  return spaced ? spaced.charAt(0).toUpperCase() + spaced.slice(1) : key;
}

export function short(value: string | undefined): string | undefined {
  return value === undefined ? undefined : clip(value, SHORT);
}

// Hints allow longer text than the card's short fields; cut rather than fail the whole card.
export function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}
