import "server-only";
import { createHash } from "node:crypto";

// EventLog: every entry event the host turns into a run, numbered per conversation. The id
// is derived from the entry itself (thread + message id), so the same entry always has the
// same event id, whichever protocol or retry delivered it.

export type EntryEvent = {
  id: string;
  eventType: string;
  source: string;
  sourceEventType: string | null;
  /** Small, stable facts only; large payloads go by reference (rawRef). */
  data: Record<string, unknown>;
  rawRef: { kind: string; id: string; size?: number } | null;
};

export function entryEventId({ threadId, messageId }: { threadId: string; messageId: string }): string {
  return `evt_${createHash("sha256").update(`${threadId}\u0000${messageId}`).digest("hex").slice(0, 32)}`;
}
