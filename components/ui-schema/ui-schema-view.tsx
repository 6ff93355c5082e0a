"use client";

import { useMemo } from "react";
import { parseUiSchema, type UiNode, type UiSchema } from "@/server/ui-schema/schema";
import { UiFallback } from "./ui-fallback";
import { UiNodeView } from "./ui-node-view";
import { ViewerZoneContext } from "./viewer-zone";
import { useI18n } from "@/components/i18n/use-dictionary";
import styles from "./ui-schema.module.css";

// Renders a tool card from TOOL_CALL_RESULT `metadata.ui_schema` or /history `uiSchema`.
// The document arrives as untrusted JSON, so it is validated here against the same strict
// schema the server compiles to; anything else becomes a readable fallback, never a crash.

const THEME_CLASS: Record<UiSchema["theme"], string | undefined> = {
  default: styles.themeDefault,
  light: styles.themeLight,
  dark: styles.themeDark,
};

export function UiSchemaView({ schema }: { schema: unknown }) {
  const parsed = useMemo(() => parseUiSchema(schema), [schema]);
  const { timeZone } = useI18n();

  if (!parsed.success) {
    return (
      <section className={`${styles.root} ${styles.themeDefault}`} data-testid="ui-schema-card" data-state="invalid">
        <UiFallback value={schema} reason={parsed.error} />
      </section>
    );
  }

  const doc = parsed.data;
  return (
    <section
      className={`${styles.root} ${THEME_CLASS[doc.theme] ?? ""}`}
      data-testid="ui-schema-card"
      data-state="valid"
      data-status={doc.status}
      data-theme={doc.theme}
      lang={doc.locale}
      // A group, not a region: a chat holds many cards, often with the same title.
      role="group"
      aria-label={firstTitle(doc.root)}
    >
      <ViewerZoneContext value={timeZone}>
        <UiNodeView node={doc.root} locale={doc.locale} />
      </ViewerZoneContext>
    </section>
  );
}

/** The title of a valid card with its status, or null: for a one-line summary of it. */
export function cardSummary(schema: unknown): { title: string; status: UiSchema["status"] } | null {
  const parsed = parseUiSchema(schema);
  if (!parsed.success) return null;
  const title = firstTitle(parsed.data.root);
  return title ? { title, status: parsed.data.status } : null;
}

/** The card's heading, so the section has an accessible name in a long chat. */
function firstTitle(node: UiNode): string | undefined {
  if (node.type === "text" && node.role === "title") return node.content;
  const children = node.type === "stack" ? node.children : node.type === "list" ? node.items : [];
  for (const child of children) {
    const title = firstTitle(child);
    if (title) return title;
  }
  return undefined;
}
