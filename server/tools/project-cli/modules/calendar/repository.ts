import "server-only";
import type pg from "pg";
import type { CalendarEventStatus, InviteStatus as InviteStatusEnum } from "@/server/generated/prisma/enums";
import type { CalendarEventModel, UserModel } from "@/server/generated/prisma/models";

// The only code that reads or writes calendar rows. Every query names the user it runs for:
// events are visible to their owner and to users holding an invitation, writable by the owner.

export type EventStatus = CalendarEventStatus;
export type InviteStatus = InviteStatusEnum;

export type EventRow = Pick<CalendarEventModel, "id" | "ownerId" | "title" | "description" | "location" | "startAt" | "endAt" | "timeZone" | "allDay" | "status"> & {
  ownerEmail: UserModel["email"];
  ownerName: UserModel["name"];
  /** The viewing user's own invitation, when they are not the owner. */
  inviteId: string | null;
  inviteStatus: InviteStatus | null;
};

export type AttendeeRow = { eventId: string; email: string; name: string | null; status: InviteStatus };
export type UserRef = { id: string; email: string; name: string | null };
export type InviteRow = { id: string; eventId: string; status: InviteStatus };

const EVENT_SELECT = `
  select e.id, e.owner_id as "ownerId", o.email as "ownerEmail", o.name as "ownerName", e.title, e.description,
         e.location, e.start_at as "startAt", e.end_at as "endAt", e.time_zone as "timeZone", e.all_day as "allDay",
         e.status::text as status, i.id as "inviteId", i.status::text as "inviteStatus"
  from calendar_events e
  join users o on o.id = e.owner_id
  left join calendar_invites i on i.event_id = e.id and i.invitee_id = $1`;

// Timestamps without a zone hold UTC, as Prisma writes them.
const NOW_UTC = `(now() at time zone 'utc')`;

/**
 * What a day or range shows, in one round trip: the events overlapping [start, end) that the
 * user owns or accepted, by start (one more than `limit` tells of truncation), and those others
 * invited the user to that await an answer (at most `pendingLimit`).
 */
export async function findCalendarListing(
  { userId, start, end, limit, pendingLimit }: { userId: string; start: Date; end: Date; limit: number; pendingLimit: number },
  db: pg.ClientBase,
): Promise<{ events: EventRow[]; pending: EventRow[] }> {
  const overlaps = "e.start_at < $3 and e.end_at > $2";
  const { rows } = await db.query<EventRow & { list: "event" | "pending" }>(
    `select * from (
       (select 'event' as list, l.* from (${EVENT_SELECT} where (e.owner_id = $1 or i.status = 'accepted') and ${overlaps}
                                          order by e.start_at, e.id limit $4) l)
       union all
       (select 'pending' as list, l.* from (${EVENT_SELECT} where i.status = 'pending' and ${overlaps}
                                            order by e.start_at, e.id limit $5) l)
     ) listing order by list, "startAt", id`,
    [userId, start, end, limit, pendingLimit],
  );
  const events: EventRow[] = [];
  const pending: EventRow[] = [];
  for (const { list, ...row } of rows) (list === "event" ? events : pending).push(row);
  return { events, pending };
}

/** One event the user owns or was invited to (any answer); null otherwise. */
export async function findVisibleEvent({ userId, eventId }: { userId: string; eventId: string }, db: pg.ClientBase): Promise<EventRow | null> {
  const { rows } = await db.query<EventRow>(`${EVENT_SELECT} where e.id = $2 and (e.owner_id = $1 or i.id is not null)`, [userId, eventId]);
  return rows[0] ?? null;
}

/** One event the user owns, locked for the rest of the transaction; null otherwise. */
export async function findOwnedEventForUpdate({ userId, eventId }: { userId: string; eventId: string }, db: pg.ClientBase): Promise<EventRow | null> {
  const { rows } = await db.query<EventRow>(`${EVENT_SELECT} where e.id = $2 and e.owner_id = $1 for update of e`, [userId, eventId]);
  return rows[0] ?? null;
}

export async function findAttendees({ eventIds }: { eventIds: string[] }, db: pg.ClientBase): Promise<AttendeeRow[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await db.query<AttendeeRow>(
    `select i.event_id as "eventId", u.email, u.name, i.status::text as status
     from calendar_invites i join users u on u.id = i.invitee_id
     where i.event_id = any($1::uuid[]) order by i.created_at, u.email`,
    [eventIds],
  );
  return rows;
}

export type NewEvent = {
  ownerId: string;
  title: string;
  description: string | null;
  location: string | null;
  startAt: Date;
  endAt: Date;
  timeZone: string;
};

export async function insertCalendarEvent(e: NewEvent, db: pg.ClientBase): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into calendar_events (id, owner_id, title, description, location, start_at, end_at, time_zone, updated_at)
     values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, ${NOW_UTC}) returning id`,
    [e.ownerId, e.title, e.description, e.location, e.startAt, e.endAt, e.timeZone],
  );
  return rows[0]!.id;
}

export type EventPatch = Partial<Pick<NewEvent, "title" | "description" | "location" | "startAt" | "endAt" | "timeZone"> & { status: EventStatus }>;

const PATCH_COLUMNS: Record<keyof EventPatch, string> = {
  title: "title",
  description: "description",
  location: "location",
  startAt: "start_at",
  endAt: "end_at",
  timeZone: "time_zone",
  status: `status`,
};

/** Applies `patch` to an event the user owns; false when there is no such event. */
export async function updateOwnedEvent(
  { userId, eventId, patch }: { userId: string; eventId: string; patch: EventPatch },
  db: pg.ClientBase,
): Promise<boolean> {
  const entries = Object.entries(patch).filter(([, v]) => v !== undefined) as [keyof EventPatch, unknown][];
  const sets = entries.map(([key], i) => `${PATCH_COLUMNS[key]} = $${i + 3}${key === "status" ? `::"CalendarEventStatus"` : ""}`);
  const { rowCount } = await db.query(
    `update calendar_events set ${[...sets, `updated_at = ${NOW_UTC}`].join(", ")} where id = $1 and owner_id = $2`,
    [eventId, userId, ...entries.map(([, v]) => v)],
  );
  return rowCount === 1;
}

export async function deleteOwnedEvent({ userId, eventId }: { userId: string; eventId: string }, db: pg.ClientBase): Promise<boolean> {
  const { rowCount } = await db.query(`delete from calendar_events where id = $1 and owner_id = $2`, [eventId, userId]);
  return rowCount === 1;
}

export async function findUsersByEmails({ emails }: { emails: string[] }, db: pg.ClientBase): Promise<UserRef[]> {
  if (emails.length === 0) return [];
  const { rows } = await db.query<UserRef>(`select id, email, name from users where lower(email) = any($1::text[])`, [emails]);
  return rows;
}

export async function findInvite({ eventId, inviteeId }: { eventId: string; inviteeId: string }, db: pg.ClientBase): Promise<InviteRow | null> {
  const { rows } = await db.query<InviteRow>(
    `select id, event_id as "eventId", status::text as status from calendar_invites where event_id = $1 and invitee_id = $2`,
    [eventId, inviteeId],
  );
  return rows[0] ?? null;
}

/** Invites `inviteeId`, or asks again after a rejection; an open invitation is left as it is. */
export async function upsertPendingInvite(
  { eventId, inviteeId, inviterId }: { eventId: string; inviteeId: string; inviterId: string },
  db: pg.ClientBase,
): Promise<InviteRow> {
  const { rows } = await db.query<InviteRow>(
    `insert into calendar_invites (id, event_id, invitee_id, inviter_id, status) values (gen_random_uuid(), $1, $2, $3, 'pending')
     on conflict (event_id, invitee_id) do update
       set status = 'pending', inviter_id = excluded.inviter_id, responded_at = null, created_at = ${NOW_UTC}
       where calendar_invites.status = 'rejected'
     returning id, event_id as "eventId", status::text as status`,
    [eventId, inviteeId, inviterId],
  );
  return rows[0] ?? (await findInvite({ eventId, inviteeId }, db))!;
}

/** The user's own invitation, by its id or by its event's id; null when they hold none. */
export async function findReceivedInvite(
  { userId, inviteId, eventId }: { userId: string; inviteId?: string; eventId?: string },
  db: pg.ClientBase,
): Promise<InviteRow | null> {
  const { rows } = await db.query<InviteRow>(
    `select id, event_id as "eventId", status::text as status from calendar_invites
     where invitee_id = $1 and ($2::uuid is null or id = $2) and ($3::uuid is null or event_id = $3) for update`,
    [userId, inviteId ?? null, eventId ?? null],
  );
  return rows[0] ?? null;
}

export async function setInviteStatus(
  { userId, inviteId, status }: { userId: string; inviteId: string; status: InviteStatus },
  db: pg.ClientBase,
): Promise<void> {
  await db.query(
    `update calendar_invites set status = $3::"InviteStatus", responded_at = ${NOW_UTC} where id = $1 and invitee_id = $2`,
    [inviteId, userId, status],
  );
}
