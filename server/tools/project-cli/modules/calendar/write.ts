import "server-only";
import { inTransaction, type ToolContext } from "../../context";
import { notFound, ToolError } from "../../errors";
import { presentEvent } from "./present";
import {
  deleteOwnedEvent,
  findOwnedEventForUpdate,
  findUsersByEmails,
  insertCalendarEvent,
  updateOwnedEvent,
  upsertPendingInvite,
  type EventPatch,
  type EventRow,
} from "./repository";
import type { CalendarCreateData, CalendarDeleteData, CalendarUpdateData } from "./data";
import type { CalendarCreateInput, CalendarUpdateInput } from "./schemas";

const MINUTE = 60_000;
const MAX_EVENT_MS = 14 * 24 * 60 * MINUTE;

const blankToNull = (v: string | null | undefined) => (v?.trim() ? v.trim() : null);

async function ownedEventOrThrow(ctx: ToolContext, eventId: string): Promise<EventRow> {
  const row = await findOwnedEventForUpdate({ userId: ctx.userId, eventId }, ctx.db);
  if (!row) throw notFound("event", eventId);
  return row;
}

// calendar.create: attendees who are Dispatch users get an invitation; the others are
// reported back (the call is then "partial"), never silently dropped.
export async function createCalendarEvent(ctx: ToolContext, input: CalendarCreateInput): Promise<CalendarCreateData> {
  const startAt = new Date(input.start_at);
  const endAt = input.end_at ? new Date(input.end_at) : new Date(startAt.getTime() + (input.duration_minutes ?? 0) * MINUTE);
  const emails = [...new Set(input.attendees ?? [])];
  return inTransaction(ctx, async () => {
    const users = new Map((await findUsersByEmails({ emails }, ctx.db)).map((u) => [u.email.toLowerCase(), u]));
    const eventId = await insertCalendarEvent(
      {
        ownerId: ctx.userId,
        title: input.title,
        description: blankToNull(input.description),
        location: blankToNull(input.location),
        startAt,
        endAt,
        timeZone: input.time_zone ?? ctx.timeZone,
      },
      ctx.db,
    );
    const invited: CalendarCreateData["invited"] = [];
    const notInvited: CalendarCreateData["not_invited"] = [];
    for (const email of emails) {
      const user = users.get(email);
      if (!user) notInvited.push({ email, reason: "not_a_dispatch_user" });
      else if (user.id !== ctx.userId) {
        await upsertPendingInvite({ eventId, inviteeId: user.id, inviterId: ctx.userId }, ctx.db);
        invited.push({ email: user.email, name: user.name });
      }
    }
    const row = await ownedEventOrThrow(ctx, eventId);
    return { event: await presentEvent(row, { userId: ctx.userId, db: ctx.db }), invited, not_invited: notInvited };
  });
}

// calendar.update: moving the start keeps the duration unless a new end or duration is given.
export async function updateCalendarEvent(ctx: ToolContext, input: CalendarUpdateInput): Promise<CalendarUpdateData> {
  return inTransaction(ctx, async () => {
    const row = await ownedEventOrThrow(ctx, input.event_id);
    const startAt = input.start_at ? new Date(input.start_at) : row.startAt;
    const endAt = input.end_at
      ? new Date(input.end_at)
      : input.duration_minutes !== undefined
        ? new Date(startAt.getTime() + input.duration_minutes * MINUTE)
        : new Date(startAt.getTime() + (row.endAt.getTime() - row.startAt.getTime()));
    if (endAt <= startAt || endAt.getTime() - startAt.getTime() > MAX_EVENT_MS) {
      throw new ToolError("INVALID_TIME_RANGE", "The event must end after it starts and last at most 14 days", {
        details: { start_at: startAt.toISOString(), end_at: endAt.toISOString() },
      });
    }
    const next = {
      title: input.title ?? row.title,
      description: input.description === undefined ? row.description : blankToNull(input.description),
      location: input.location === undefined ? row.location : blankToNull(input.location),
      startAt,
      endAt,
      timeZone: input.time_zone ?? row.timeZone,
      status: input.status ?? row.status,
    };
    const changed: [string, keyof EventPatch, boolean][] = [
      ["title", "title", next.title !== row.title],
      ["start_at", "startAt", next.startAt.getTime() !== row.startAt.getTime()],
      ["end_at", "endAt", next.endAt.getTime() !== row.endAt.getTime()],
      ["time_zone", "timeZone", next.timeZone !== row.timeZone],
      ["location", "location", next.location !== row.location],
      ["description", "description", next.description !== row.description],
      ["status", "status", next.status !== row.status],
    ];
    const patch: EventPatch = Object.fromEntries(changed.filter(([, , diff]) => diff).map(([, key]) => [key, next[key]]));
    if (Object.keys(patch).length > 0) await updateOwnedEvent({ userId: ctx.userId, eventId: row.id, patch }, ctx.db);
    const updated = await ownedEventOrThrow(ctx, row.id);
    return {
      event: await presentEvent(updated, { userId: ctx.userId, db: ctx.db }),
      changed_fields: changed.filter(([, , diff]) => diff).map(([name]) => name),
    };
  });
}

export async function deleteCalendarEvent(ctx: ToolContext, input: { event_id: string }): Promise<CalendarDeleteData> {
  return inTransaction(ctx, async () => {
    const row = await ownedEventOrThrow(ctx, input.event_id);
    const event = await presentEvent(row, { userId: ctx.userId, db: ctx.db });
    await deleteOwnedEvent({ userId: ctx.userId, eventId: row.id }, ctx.db);
    return { deleted: true, event };
  });
}
