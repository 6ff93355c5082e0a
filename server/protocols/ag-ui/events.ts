import { firstIssue } from "../../kernel/input-issues";
import type { Event, EventType } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";

// Dispatch's internal run event model is the AG-UI 1.0 event set itself, so an event is
// serialized once and the same JSON is persisted, streamed and replayed. Other protocols
// encode from these events; nothing here has a second, hand-written shape.

export type AgUiEvent = Event;
export type AgUiEventOf<T extends EventType> = Extract<AgUiEvent, { type: T }>;

/** One entry of a run's event log: its per-run sequence number and the event. */
export type RunEventRecord = { seq: number; event: AgUiEvent };

export const AgUiEventSchema = EventSchema;

// The schemas are open objects (they keep unknown keys), but @ag-ui/client strips unknown
// top-level fields with a warning, so anything we put there would be lost in the browser.
const knownFieldsByType: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  EventSchema.options.map((option) => [String(option.shape.type.value), new Set(Object.keys(option.shape))]),
);

/** Top-level fields of an event that the AG-UI 1.0 schema does not define for its type. */
export function unknownEventFields(event: { type: unknown } & object): string[] {
  const known = knownFieldsByType.get(String(event.type));
  if (!known) return [];
  return Object.keys(event).filter((key) => !known.has(key));
}

export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidEventError";
  }
}

/**
 * Validates a value as one AG-UI 1.0 event with no unknown top-level fields (a stored
 * event read back, or one from a runner). Returns the value itself, not a copy.
 */
export function parseAgUiEvent(value: unknown): AgUiEvent {
  const parsed = EventSchema.safeParse(value);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    throw new InvalidEventError(`invalid AG-UI event${issue?.field ? ` at ${issue.field}` : ""}: ${issue?.message ?? "unknown error"}`);
  }
  const extra = unknownEventFields(value as { type: unknown });
  if (extra.length > 0) {
    throw new InvalidEventError(`AG-UI event ${String((value as { type: unknown }).type)} has unknown fields: ${extra.join(", ")}`);
  }
  return value as AgUiEvent;
}
