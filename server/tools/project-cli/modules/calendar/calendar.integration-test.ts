import { beforeAll, describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { actAs, dataOf, errorOf, openTestConnection } from "../../test-support";
import type { CalendarCreateData, CalendarEventData, CalendarReadData, CalendarShareData, CalendarUpdateData } from "./data";

type User = Awaited<ReturnType<typeof createTestUser>>;
type ListData = Extract<CalendarReadData, { mode: "day" | "range" }>;

const db = openTestConnection();
let alice: User;
let bob: User;
let carol: User;
let asAlice: ReturnType<typeof actAs>;
let asBob: ReturnType<typeof actAs>;
let asCarol: ReturnType<typeof actAs>;

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  asAlice = actAs(db, alice.id, "Asia/Shanghai");
  asBob = actAs(db, bob.id, "Asia/Shanghai");
  asCarol = actAs(db, carol.id);
});

const day = (date: string) => ({ mode: "day", date, time_zone: "Asia/Shanghai" });
const titles = (data: ListData) => data.items.map((e) => e.title);

async function create(input: Record<string, unknown>, as = () => asAlice): Promise<CalendarCreateData> {
  return dataOf<CalendarCreateData>(await as()("calendar.create", input));
}

describe("calendar", () => {
  it("creates an event in the user's zone and reads it back by day, range and id", async () => {
    const created = await create({ title: "Project sync", start_at: "2026-04-21T10:00:00+08:00", duration_minutes: 45, location: "Room 4" });
    expect(created.event).toMatchObject({
      title: "Project sync",
      start_at: "2026-04-21T10:00:00+08:00",
      end_at: "2026-04-21T10:45:00+08:00",
      time_zone: "Asia/Shanghai",
      location: "Room 4",
      description: null,
      is_owner: true,
      owner: { email: alice.email },
      attendees: [],
    });
    const byDay = dataOf<ListData>(await asAlice("calendar.read", day("2026-04-21")));
    expect(byDay.range).toEqual({ start_at: "2026-04-21T00:00:00+08:00", end_at: "2026-04-22T00:00:00+08:00", time_zone: "Asia/Shanghai" });
    expect(titles(byDay)).toContain("Project sync");
    const byRange = dataOf<ListData>(
      await asAlice("calendar.read", { mode: "range", start_at: "2026-04-21T02:00:00Z", end_at: "2026-04-21T02:30:00Z", time_zone: "UTC" }),
    );
    expect(byRange.items.map((e) => e.start_at)).toContain("2026-04-21T02:00:00+00:00");
    const byId = dataOf<{ event: CalendarEventData }>(await asAlice("calendar.read", { mode: "event", event_id: created.event.id }));
    expect(byId.event.id).toBe(created.event.id);
  });

  it("reads a day in the zone asked for: late evening in Shanghai is the previous UTC day", async () => {
    await create({ title: "Late call", start_at: "2026-05-01T23:30:00+08:00", end_at: "2026-05-02T00:15:00+08:00" });
    expect(titles(dataOf<ListData>(await asAlice("calendar.read", day("2026-05-01"))))).toContain("Late call");
    expect(titles(dataOf<ListData>(await asAlice("calendar.read", day("2026-05-02"))))).toContain("Late call");
    const utcDay = dataOf<ListData>(await asAlice("calendar.read", { mode: "day", date: "2026-05-02", time_zone: "UTC" }));
    expect(titles(utcDay)).not.toContain("Late call");
  });

  it("invites attendees who are users, reports the others, and shows invitations only once accepted", async () => {
    const created = await create({
      title: "Design review",
      start_at: "2026-06-03T14:00:00+08:00",
      end_at: "2026-06-03T15:00:00+08:00",
      attendees: [bob.email.toUpperCase(), "stranger@nowhere.example", alice.email],
    });
    expect(created.invited).toEqual([{ email: bob.email, name: null }]);
    expect(created.not_invited).toEqual([{ email: "stranger@nowhere.example", reason: "not_a_dispatch_user" }]);
    expect(created.event.attendees).toEqual([{ email: bob.email, name: null, status: "pending" }]);

    const pending = dataOf<ListData>(await asBob("calendar.read", day("2026-06-03")));
    expect(titles(pending)).not.toContain("Design review");
    const invitation = pending.pending_invites.find((e) => e.id === created.event.id)!;
    expect(invitation).toMatchObject({ is_owner: false, invite: { status: "pending" } });

    const accepted = dataOf<{ event: CalendarEventData }>(await asBob("calendar.accept_invite", { invite_id: invitation.invite!.id }));
    expect(accepted.event.invite).toEqual({ id: invitation.invite!.id, status: "accepted" });
    const after = dataOf<ListData>(await asBob("calendar.read", day("2026-06-03")));
    expect(titles(after)).toContain("Design review");
    expect(after.pending_invites.map((e) => e.id)).not.toContain(created.event.id);

    const rejected = dataOf<{ event: CalendarEventData }>(await asBob("calendar.reject_invite", { event_id: created.event.id }));
    expect(rejected.event.invite?.status).toBe("rejected");
    expect(titles(dataOf<ListData>(await asBob("calendar.read", day("2026-06-03"))))).not.toContain("Design review");
  });

  it("lets only the owner change, share or delete an event; to others it does not exist", async () => {
    const { event } = await create({ title: "Budget", start_at: "2026-07-01T09:00:00+08:00", duration_minutes: 60, attendees: [bob.email] });
    for (const [as, who] of [[asBob, "invitee"], [asCarol, "stranger"]] as const) {
      for (const [action, input] of [
        ["calendar.update", { event_id: event.id, title: `hijacked by ${who}` }],
        ["calendar.delete", { event_id: event.id }],
        ["calendar.share", { event_id: event.id, email: carol.email }],
      ] as const) {
        expect(errorOf(await as(action, input))).toMatchObject({ code: "EVENT_NOT_FOUND" });
      }
    }
    expect(errorOf(await asCarol("calendar.read", { mode: "event", event_id: event.id })).code).toBe("EVENT_NOT_FOUND");
    expect(errorOf(await asCarol("calendar.accept_invite", { event_id: event.id })).code).toBe("INVITE_NOT_FOUND");
    expect(titles(dataOf<ListData>(await asCarol("calendar.read", { mode: "day", date: "2026-07-01", time_zone: "Asia/Shanghai" })))).not.toContain("Budget");
    const stillThere = dataOf<{ event: CalendarEventData }>(await asAlice("calendar.read", { mode: "event", event_id: event.id }));
    expect(stillThere.event.title).toBe("Budget");
    // The invitee may look at what they were invited to.
    expect(dataOf<{ event: CalendarEventData }>(await asBob("calendar.read", { mode: "event", event_id: event.id })).event.is_owner).toBe(false);
  });

  it("updates fields, keeps the duration when only the start moves, and names what changed", async () => {
    const { event } = await create({ title: "1:1", start_at: "2026-08-10T10:00:00+08:00", duration_minutes: 30, location: "Cafe" });
    const moved = dataOf<CalendarUpdateData>(
      await asAlice("calendar.update", { event_id: event.id, start_at: "2026-08-10T15:00:00+08:00", location: null, title: "1:1" }),
    );
    expect(moved.changed_fields).toEqual(["start_at", "end_at", "location"]);
    expect(moved.event).toMatchObject({ start_at: "2026-08-10T15:00:00+08:00", end_at: "2026-08-10T15:30:00+08:00", location: null, title: "1:1" });
    const cancelled = dataOf<CalendarUpdateData>(await asAlice("calendar.update", { event_id: event.id, status: "cancelled", duration_minutes: 90 }));
    expect(cancelled.changed_fields).toEqual(["end_at", "status"]);
    expect(cancelled.event).toMatchObject({ status: "cancelled", end_at: "2026-08-10T16:30:00+08:00" });
    const backwards = await asAlice("calendar.update", { event_id: event.id, end_at: "2026-08-10T09:00:00+08:00" });
    expect(errorOf(backwards).code).toBe("INVALID_TIME_RANGE");
  });

  it("shares an event once, asks again after a rejection, and refuses unknown people", async () => {
    const { event } = await create({ title: "Offsite", start_at: "2026-09-01T09:00:00+08:00", duration_minutes: 480 });
    const first = dataOf<CalendarShareData>(await asAlice("calendar.share", { event_id: event.id, email: carol.email }));
    expect(first).toMatchObject({ already_invited: false, invite: { email: carol.email, status: "pending" } });
    expect(first.event.attendees).toEqual([{ email: carol.email, name: null, status: "pending" }]);
    const again = dataOf<CalendarShareData>(await asAlice("calendar.share", { event_id: event.id, email: carol.email }));
    expect(again).toMatchObject({ already_invited: true, invite: { id: first.invite.id } });
    await asCarol("calendar.reject_invite", { invite_id: first.invite.id });
    const reinvited = dataOf<CalendarShareData>(await asAlice("calendar.share", { event_id: event.id, email: carol.email }));
    expect(reinvited).toMatchObject({ already_invited: false, invite: { status: "pending" } });
    expect(errorOf(await asAlice("calendar.share", { event_id: event.id, email: "nobody@nowhere.example" })).code).toBe("USER_NOT_FOUND");
    expect(errorOf(await asAlice("calendar.share", { event_id: event.id, email: alice.email })).code).toBe("CANNOT_INVITE_OWNER");
  });

  it("deletes an event with its invitations", async () => {
    const { event } = await create({ title: "Doomed", start_at: "2026-10-01T09:00:00+08:00", duration_minutes: 15, attendees: [bob.email] });
    const deleted = dataOf<{ deleted: true; event: CalendarEventData }>(await asAlice("calendar.delete", { event_id: event.id }));
    expect(deleted.event.title).toBe("Doomed");
    expect(errorOf(await asAlice("calendar.read", { mode: "event", event_id: event.id })).code).toBe("EVENT_NOT_FOUND");
    expect(errorOf(await asBob("calendar.accept_invite", { event_id: event.id })).code).toBe("INVITE_NOT_FOUND");
    expect(errorOf(await asAlice("calendar.delete", { event_id: event.id })).code).toBe("EVENT_NOT_FOUND");
  });
});
