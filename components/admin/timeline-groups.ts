// The run's events as a person reads them: one entry per message (its text chunks joined) and
// per tool call (start, argument chunks, end and result), every other event on its own. The
// raw events stay inside each entry.

export type TimelineEvent = { seq: number; type: string; payload: string; createdAt: Date };

export type TimelineGroup = {
  /** The event type, or TEXT_MESSAGE / TOOL_CALL for a group. */
  kind: string;
  key: string;
  events: TimelineEvent[];
  /** What the group says: the message text, or the tool name and arguments. */
  summary: string;
};

function fields(payload: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

function groupOf(type: string, f: Record<string, unknown>): { kind: string; id: string } | null {
  if (type.startsWith("TEXT_MESSAGE_") && str(f.messageId)) return { kind: "TEXT_MESSAGE", id: str(f.messageId) };
  if (type.startsWith("TOOL_CALL_") && str(f.toolCallId)) return { kind: "TOOL_CALL", id: str(f.toolCallId) };
  return null;
}

export function groupTimeline(events: readonly TimelineEvent[]): TimelineGroup[] {
  const groups: TimelineGroup[] = [];
  const open = new Map<string, TimelineGroup>();
  const toolNames = new Map<TimelineGroup, string>();
  for (const event of events) {
    const f = fields(event.payload);
    const g = groupOf(event.type, f);
    if (!g) {
      groups.push({ kind: event.type, key: `e${event.seq}`, events: [event], summary: event.payload.length > 90 ? `${event.payload.slice(0, 90)}…` : event.payload });
      continue;
    }
    const key = `${g.kind}:${g.id}`;
    let group = open.get(key);
    if (!group) {
      group = { kind: g.kind, key, events: [], summary: "" };
      open.set(key, group);
      groups.push(group);
    }
    group.events.push(event);
    if (event.type === "TEXT_MESSAGE_CONTENT" || event.type === "TOOL_CALL_ARGS") group.summary += str(f.delta);
    if (event.type === "TOOL_CALL_START") toolNames.set(group, str(f.toolCallName));
  }
  for (const [group, name] of toolNames) group.summary = [name, group.summary].filter(Boolean).join(" ");
  return groups;
}
