"use client";
import { prettyJson } from "./format";
import styles from "./admin.module.css";

/** JSON shown as formatted text; collapsed behind a summary unless `open`. */
export function JsonBlock({ value, summary, open = false, testId }: { value: unknown; summary?: string; open?: boolean; testId?: string }) {
  const pre = (
    // Focusable: a long JSON box scrolls, and keyboard users must be able to scroll it.
    <pre className={styles.json} data-testid={testId} tabIndex={0}>
      {prettyJson(value)}
    </pre>
  );
  if (!summary) return pre;
  return (
    <details className={styles.details} open={open}>
      <summary>{summary}</summary>
      {pre}
    </details>
  );
}
