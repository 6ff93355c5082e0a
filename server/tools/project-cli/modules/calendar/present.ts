import "server-only";
import type pg from "pg";
import { formatInZone } from "../../time";
import { findAttendees, type AttendeeRow, type EventRow } from "./repository";
import type { CalendarEventData } from "./data";

/** Rows as the model reads them: instants with offsets in `zone`, ids to chain further calls. */
export async function presentEvents(
  rows: EventRow[],
  { userId, zone, db }: { userId: string; zone?: string; db: pg.ClientBase },
): Promise<CalendarEventData[]> {
  const attendees = await findAttendees({ eventIds: rows.map((r) => r.id) }, db);
  return rows.map((row) => toEventData(row, attendees, userId, zone ?? row.timeZone));
}

export async function presentEvent(row: EventRow, ctx: { userId: string; zone?: string; db: pg.ClientBase }): Promise<CalendarEventData> {
  const [event] = await presentEvents([row], ctx);
  return event!;
}

function toEventData(row: EventRow, attendees: AttendeeRow[], userId: string, zone: string): CalendarEventData {
  return {
    id: row.id,
    title: row.title,
    start_at: formatInZone(row.startAt, zone),
    end_at: formatInZone(row.endAt, zone),
    time_zone: row.timeZone,
    all_day: row.allDay,
    location: row.location,
    description: row.description,
    status: row.status,
    owner: { email: row.ownerEmail, name: row.ownerName },
    is_owner: row.ownerId === userId,
    invite: row.inviteId && row.inviteStatus ? { id: row.inviteId, status: row.inviteStatus } : null,
    attendees: attendees.filter((a) => a.eventId === row.id).map(({ email, name, status }) => ({ email, name, status })),
  };
}
