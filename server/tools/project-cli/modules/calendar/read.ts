import "server-only";
import type { ToolContext } from "../../context";
import { notFound } from "../../errors";
import { dayBounds, formatInZone } from "../../time";
import { presentEvents, presentEvent } from "./present";
import { findCalendarListing, findVisibleEvent } from "./repository";
import type { CalendarReadData } from "./data";
import type { CalendarReadInput } from "./schemas";

const MAX_EVENTS = 200;
const MAX_PENDING = 50;

// calendar.read: a day or range lists owned and accepted events (plus invitations waiting
// for an answer, so the model can offer to accept them); event mode also shows invitations.
export async function readCalendar(ctx: ToolContext, input: CalendarReadInput): Promise<CalendarReadData> {
  if (input.mode === "event") {
    const row = await findVisibleEvent({ userId: ctx.userId, eventId: input.event_id }, ctx.db);
    if (!row) throw notFound("event", input.event_id);
    return { mode: "event", event: await presentEvent(row, { userId: ctx.userId, db: ctx.db }) };
  }
  const zone = input.time_zone ?? ctx.timeZone;
  const { start, end } = input.mode === "day" ? dayBounds(input.date, zone) : { start: new Date(input.start_at), end: new Date(input.end_at) };
  const { events, pending } = await findCalendarListing({ userId: ctx.userId, start, end, limit: MAX_EVENTS + 1, pendingLimit: MAX_PENDING }, ctx.db);
  const items = events.slice(0, MAX_EVENTS);
  // One attendee query for both lists.
  const presented = await presentEvents([...items, ...pending], { userId: ctx.userId, zone, db: ctx.db });
  return {
    mode: input.mode,
    range: { start_at: formatInZone(start, zone), end_at: formatInZone(end, zone), time_zone: zone },
    items: presented.slice(0, items.length),
    count: items.length,
    truncated: events.length > MAX_EVENTS,
    pending_invites: presented.slice(items.length),
  };
}
