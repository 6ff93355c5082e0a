import "server-only";
import { inTransaction, type ToolContext } from "../../context";
import { notFound, ToolError } from "../../errors";
import { presentEvent } from "./present";
import {
  findInvite,
  findOwnedEventForUpdate,
  findReceivedInvite,
  findUsersByEmails,
  findVisibleEvent,
  setInviteStatus,
  upsertPendingInvite,
} from "./repository";
import type { CalendarInviteAnswerData, CalendarShareData } from "./data";
import type { CalendarInviteAnswerInput } from "./schemas";

// calendar.share: only the owner invites. Sharing again is harmless: an open invitation is
// reported as already there, a rejected one is asked again.
export async function shareCalendarEvent(ctx: ToolContext, input: { event_id: string; email: string }): Promise<CalendarShareData> {
  return inTransaction(ctx, async () => {
    const row = await findOwnedEventForUpdate({ userId: ctx.userId, eventId: input.event_id }, ctx.db);
    if (!row) throw notFound("event", input.event_id);
    const [invitee] = await findUsersByEmails({ emails: [input.email] }, ctx.db);
    if (!invitee) throw new ToolError("USER_NOT_FOUND", `No Dispatch user has the email ${input.email}`, { details: { email: input.email } });
    if (invitee.id === ctx.userId) throw new ToolError("CANNOT_INVITE_OWNER", "The owner of an event cannot be invited to it");
    const existing = await findInvite({ eventId: row.id, inviteeId: invitee.id }, ctx.db);
    const alreadyInvited = existing !== null && existing.status !== "rejected";
    const invite = alreadyInvited ? existing : await upsertPendingInvite({ eventId: row.id, inviteeId: invitee.id, inviterId: ctx.userId }, ctx.db);
    return {
      event: await presentEvent(row, { userId: ctx.userId, db: ctx.db }),
      invite: { id: invite.id, status: invite.status, email: invitee.email, name: invitee.name },
      already_invited: alreadyInvited,
    };
  });
}

export function acceptCalendarInvite(ctx: ToolContext, input: CalendarInviteAnswerInput): Promise<CalendarInviteAnswerData> {
  return answerInvite(ctx, input, "accepted");
}

export function rejectCalendarInvite(ctx: ToolContext, input: CalendarInviteAnswerInput): Promise<CalendarInviteAnswerData> {
  return answerInvite(ctx, input, "rejected");
}

async function answerInvite(
  ctx: ToolContext,
  input: CalendarInviteAnswerInput,
  status: "accepted" | "rejected",
): Promise<CalendarInviteAnswerData> {
  const inviteId = "invite_id" in input ? input.invite_id : undefined;
  const eventId = "event_id" in input ? input.event_id : undefined;
  return inTransaction(ctx, async () => {
    const invite = await findReceivedInvite({ userId: ctx.userId, inviteId, eventId }, ctx.db);
    if (!invite) {
      throw new ToolError("INVITE_NOT_FOUND", inviteId ? `No invitation with id ${inviteId}` : `You have no invitation to event ${eventId}`);
    }
    if (invite.status !== status) await setInviteStatus({ userId: ctx.userId, inviteId: invite.id, status }, ctx.db);
    const row = await findVisibleEvent({ userId: ctx.userId, eventId: invite.eventId }, ctx.db);
    return { event: await presentEvent(row!, { userId: ctx.userId, db: ctx.db }) };
  });
}
