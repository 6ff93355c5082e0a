import { FALLBACK_TEXT } from "./labels";
import styles from "./ui-schema.module.css";

// What a card the renderer refuses looks like: a plain sentence for the user, and the raw
// data behind a disclosure for whoever is debugging the producer.

const MAX_RAW_CHARS = 20_000;

export function UiFallback({ value, reason }: { value: unknown; reason?: string }) {
  return (
    <div className={styles.fallback} role="note" data-testid="ui-schema-fallback">
      <p className={styles.body}>{FALLBACK_TEXT.title}</p>
      <details>
        <summary>{FALLBACK_TEXT.details}</summary>
        {reason ? <p className={`${styles.caption} ${styles.fallbackReason}`}>{reason}</p> : null}
        <pre className={styles.fallbackRaw}>{toRawJson(value)}</pre>
      </details>
    </div>
  );
}

function toRawJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    // Cycles and BigInts cannot be serialised; the fallback must still render.
    text = String(value);
  }
  return text.length > MAX_RAW_CHARS ? `${text.slice(0, MAX_RAW_CHARS)}\n…` : text;
}
