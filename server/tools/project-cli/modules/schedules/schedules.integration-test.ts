import { describe, expect, it } from "vitest";
import { needsApproval } from "@/server/approvals/policy";
import { createTestUser } from "@/test/helpers";
import { getJson } from "@/test/runs";
import { decide, events, interruptedRun, ofType } from "@/server/approvals/test-support";
import { dataOf, errorOf, openTestConnection, twoActors } from "../../test-support";
import { asksCreate } from "./asks";

// The schedules module through the real router and database, and from the chat: the model's
// schedules.create waits for the user's approval, asked in their words, and makes the schedule once approved.

const db = openTestConnection();
const as = twoActors(db);

type Listed = { schedules: { id: string; message: string; cron: string | null; timeZone: string; nextRunAt: string | null }[]; count: number };
const WEEKLY = { message: "summarize my week", cron: "0 9 * * 1", time_zone: "Europe/Berlin" };

describe("the schedules module", () => {
  it("creates, lists and deletes the user's own schedules; refuses a bad one as data", async () => {
    const created = dataOf<{ schedule: { id: string; nextRunAt: string } }>(await as.alice("schedules.create", WEEKLY));
    // Mondays 09:00 in Berlin are 08:00 UTC in winter, 07:00 in summer.
    expect(new Date(created.schedule.nextRunAt).getUTCDay()).toBe(1);
    expect([7, 8]).toContain(new Date(created.schedule.nextRunAt).getUTCHours());
    const listed = dataOf<Listed>(await as.alice("schedules.list", {}));
    expect(listed.schedules).toEqual([expect.objectContaining({ id: created.schedule.id, message: "summarize my week", cron: "0 9 * * 1", timeZone: "Europe/Berlin" })]);
    expect(dataOf<Listed>(await as.bob("schedules.list", {})).count).toBe(0);

    expect(errorOf(await as.alice("schedules.create", { message: "x", cron: "every day" }))).toMatchObject({ code: "INVALID_SCHEDULE", field: "cron" });
    expect(errorOf(await as.alice("schedules.create", { message: "x" })).code).toBe("INVALID_ACTION_INPUT");
    expect(errorOf(await as.bob("schedules.delete", { id: created.schedule.id })).code).toBe("SCHEDULE_NOT_FOUND");
    expect(dataOf(await as.alice("schedules.delete", { id: created.schedule.id }))).toEqual({ deleted: created.schedule.id });
    expect(dataOf<Listed>(await as.alice("schedules.list", {})).count).toBe(0);
  });

  it("asks before creating or deleting, even under the policy that asks only when others are involved", () => {
    expect(needsApproval("others", "schedules", "create", WEEKLY)).toBe(true);
    expect(needsApproval("others", "schedules", "delete", { id: "6f1c2b1e-8d3a-4c55-9a51-0b7c1e2f3a4d" })).toBe(true);
    expect(needsApproval("others", "schedules", "list", {})).toBe(false);
    expect(asksCreate(WEEKLY)).toEqual({ en: "Remind you every Monday at 09:00 (Europe/Berlin): ‘summarize my week’?", zh: "每周一 09:00（Europe/Berlin）提醒你：“summarize my week”？" });
    expect(asksCreate({ message: "stand up", cron: "30 8 * * 1-5" }).en).toBe("Remind you every weekday at 08:30 (your time zone): ‘stand up’?");
    expect(asksCreate({ message: "pay rent", cron: "0 10 1 * *", time_zone: "UTC" }).en).toBe("Remind you on day 1 of every month at 10:00 (UTC): ‘pay rent’?");
    expect(asksCreate({ message: "check", cron: "*/15 * * * *", time_zone: "UTC" }).en).toBe("Remind you on the schedule “*/15 * * * *” (UTC): ‘check’?");
  });

  it("from the chat: the model's schedule waits for approval, and exists once approved", { timeout: 60_000 }, async () => {
    const user = await createTestUser({ approvalPolicy: "others" });
    const call = `[[tool:schedules.create ${JSON.stringify(WEEKLY)}]]`;
    const { interrupt } = await interruptedRun(user.apiKey, `remind me every Monday at 9 to summarize my week ${call}`);
    expect(interrupt.message).toBe("Remind you every Monday at 09:00 (Europe/Berlin): ‘summarize my week’?");
    const before = (await (await getJson(user.apiKey, "/api/v1/schedules")).json()) as { items: unknown[] };
    expect(before.items).toEqual([]);

    const continued = await events(await decide(user.apiKey, interrupt.id, { approve: true }, { stream: true }));
    expect(ofType(continued, "TOOL_CALL_RESULT")).toHaveLength(1);
    const after = (await (await getJson(user.apiKey, "/api/v1/schedules")).json()) as { items: { message: string; cron: string; timeZone: string; paused: boolean }[] };
    expect(after.items).toEqual([expect.objectContaining({ message: "summarize my week", cron: "0 9 * * 1", timeZone: "Europe/Berlin", paused: false })]);
  });
});
