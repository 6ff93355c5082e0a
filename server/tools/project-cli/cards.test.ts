import { describe, expect, it } from "vitest";
import { MAX_CHILDREN, parseUiSchema, type UiNode, type UiSchema } from "@/server/ui-schema/schema";
import { compileStoredUiHints, compileUiHints, uiHintsSchema } from "./cards";
import type { UiHints } from "./module";
import { calendarEventActionSchema, type CalendarEventHint } from "./modules/calendar/cards";

const sync: CalendarEventHint = {
  id: "evt_123",
  title: "Project sync",
  start: "2026-04-21T10:00:00+08:00",
  end: "2026-04-21T11:00:00+08:00",
  timeZone: "Asia/Shanghai",
  location: "Room 4.01",
  attendees: [{ name: "Ann Lee", email: "ann@example.com", response: "accepted" }, {}],
};

/** Every node in document order, so assertions can look for content without a snapshot. */
function nodes(schema: UiSchema): UiNode[] {
  const out: UiNode[] = [];
  const visit = (node: UiNode) => {
    out.push(node);
    if (node.type === "stack") node.children.forEach(visit);
    if (node.type === "list") node.items.forEach(visit);
  };
  visit(schema.root);
  return out;
}

function texts(schema: UiSchema, role?: string): string[] {
  return nodes(schema).flatMap((n) => (n.type === "text" && (!role || n.role === role) ? [n.content] : []));
}

function ofType<T extends UiNode["type"]>(schema: UiSchema, type: T): Extract<UiNode, { type: T }>[] {
  return nodes(schema).filter((n): n is Extract<UiNode, { type: T }> => n.type === type);
}

const everyKind: UiHints[] = [
  { kind: "calendar.events", title: "Tuesday", events: [sync] },
  { kind: "calendar.events", events: [] },
  ...calendarEventActionSchema.options.map((action) => ({ kind: "calendar.event" as const, action, event: sync })),
  { kind: "contacts.list", query: "ann", contacts: [{ name: "Ann Lee", email: "ann@example.com" }] },
  { kind: "contacts.list", contacts: [] },
  { kind: "memory.facts", action: "read", facts: [{ key: "home_city", value: "Shanghai" }] },
  { kind: "memory.facts", action: "updated", facts: [] },
  { kind: "error", code: "NOT_FOUND", message: "No event with id evt_9" },
];

describe("compileUiHints", () => {
  it.each(everyKind.map((h) => [h.kind, h] as const))("compiles %s into a schema-valid card", (_kind, hints) => {
    expect(uiHintsSchema.safeParse(hints).success).toBe(true);
    const schema = compileUiHints(hints, { locale: "en-US", meta: { toolId: "call_1" } });
    expect(parseUiSchema(schema).success).toBe(true);
    expect(schema).toMatchObject({ version: "2.0", locale: "en-US", theme: "default", meta: { toolId: "call_1" } });
    expect(schema.root).toMatchObject({ type: "stack", appearance: "card" });
    expect(texts(schema, "title")).toHaveLength(1);
  });

  it("lists events with their count, as info", () => {
    const schema = compileUiHints({
      kind: "calendar.events",
      title: "Tuesday, April 21",
      range: { start: "2026-04-21T00:00:00+08:00", end: "2026-04-22T00:00:00+08:00", timeZone: "Asia/Shanghai" },
      events: [sync, { ...sync, id: "evt_124", title: "Lunch" }],
    });
    expect(schema.status).toBe("info");
    expect(texts(schema, "title")).toEqual(["Tuesday, April 21"]);
    expect(texts(schema, "caption")).toEqual(["2 events"]);
    expect(ofType(schema, "calendar_event").map((e) => e.title)).toEqual(["Project sync", "Lunch"]);
    // The title already names the day: no "From … Until …" beside it.
    expect(ofType(schema, "datetime")).toEqual([]);
    const week = compileUiHints({
      kind: "calendar.events",
      range: { start: "2026-11-23T00:00:00+08:00", end: "2026-11-30T00:00:00+08:00", timeZone: "Asia/Shanghai" },
      events: [sync],
    });
    expect(texts(week, "title")).toEqual(["Mon, Nov 23 – Sun, Nov 29"]);
    const day = compileUiHints({ kind: "calendar.events", range: { start: "2026-11-27T00:00:00-05:00", end: "2026-11-28T00:00:00-05:00", timeZone: "America/New_York" }, events: [] });
    expect(texts(day, "title")).toEqual(["Friday, Nov 27"]);
  });

  it("keeps event times as ISO values with their zone and drops attendees with no name or email", () => {
    const [event] = ofType(compileUiHints({ kind: "calendar.events", events: [sync] }), "calendar_event");
    expect(event).toMatchObject({ start: sync.start, end: sync.end, timeZone: "Asia/Shanghai", location: "Room 4.01", status: "confirmed" });
    expect(event?.attendees).toEqual([{ name: "Ann Lee", email: "ann@example.com", response: "accepted" }]);
  });

  it("says so in words when nothing was found, rather than an empty list", () => {
    const events = compileUiHints({ kind: "calendar.events", events: [] });
    expect(texts(events, "body")).toEqual(["No events in this period."]);
    expect(ofType(events, "list")).toHaveLength(0);
    expect(texts(compileUiHints({ kind: "contacts.list", query: "zed", contacts: [] }), "body")).toEqual(["No contacts match “zed”."]);
    expect(texts(compileUiHints({ kind: "memory.facts", action: "read", facts: [] }), "body")).toEqual(["Nothing remembered yet."]);
  });

  it("reports a created event as success with the event, its title saying what happened", () => {
    const schema = compileUiHints({ kind: "calendar.event", action: "created", event: sync });
    expect(schema.status).toBe("success");
    expect(texts(schema, "title")).toEqual(["Event created"]);
    expect(ofType(schema, "badge")).toEqual([]);
    expect(ofType(schema, "calendar_event")[0]?.title).toBe("Project sync");
  });

  it("names what changed and who an event was shared with", () => {
    const updated = compileUiHints({ kind: "calendar.event", action: "updated", event: sync, changedFields: ["title", "start"] });
    expect(ofType(updated, "key_value")[0]?.items).toEqual([{ label: "Changed", value: "title, start" }]);
    const shared = compileUiHints({
      kind: "calendar.event",
      action: "shared",
      event: sync,
      sharedWith: [{ email: "bob@example.com" }, { name: "Cy", email: "cy@example.com" }, {}],
    });
    expect(texts(shared, "title")).toEqual(["Event shared"]);
    expect(ofType(shared, "contact").map((c) => c.name)).toEqual(["bob@example.com", "Cy"]);
  });

  it("shows contacts matching a search with a count", () => {
    const schema = compileUiHints({
      kind: "contacts.list",
      query: "lee",
      contacts: [{ id: "c1", name: "Ann Lee", email: "ann@example.com", phone: "+1 555 0100", company: "Acme" }],
    });
    expect(schema.status).toBe("info");
    expect(texts(schema, "title")).toEqual(["Contacts matching “lee”"]);
    expect(texts(schema, "caption")).toEqual(["1 contact"]);
    expect(ofType(schema, "contact")[0]).toMatchObject({ name: "Ann Lee", phone: "+1 555 0100", company: "Acme" });
  });

  it("truncates long results and says how many exist", () => {
    const contacts = Array.from({ length: MAX_CHILDREN + 5 }, (_, i) => ({ name: `Person ${i}` }));
    const schema = compileUiHints({ kind: "contacts.list", contacts, total: 300 });
    expect(ofType(schema, "contact")).toHaveLength(MAX_CHILDREN);
    expect(texts(schema, "caption")).toEqual([`Showing ${MAX_CHILDREN} of 300`]);
  });

  it("shows memory facts as labelled rows; an update is a success with its time", () => {
    const read = compileUiHints({ kind: "memory.facts", action: "read", facts: [{ key: "preferred_meeting_time", value: "Mornings" }] });
    expect(read.status).toBe("info");
    expect(ofType(read, "key_value")[0]?.items).toEqual([{ label: "Preferred meeting time", value: "Mornings" }]);
    const updated = compileUiHints({
      kind: "memory.facts",
      action: "updated",
      facts: [
        { key: "home_city", value: "Shanghai", updatedAt: "2026-04-20T09:00:00Z" },
        { key: "team", value: "Platform", updatedAt: "2026-04-21T09:00:00Z" },
      ],
    });
    expect(updated.status).toBe("success");
    expect(texts(updated, "title")).toEqual(["Memory updated"]);
    expect(ofType(updated, "datetime")[0]).toMatchObject({ label: "Last updated", value: "2026-04-21T09:00:00Z" });
  });

  it("reports failures as error, with the operation, message and code", () => {
    const schema = compileUiHints({
      kind: "error",
      module: "calendar",
      method: "read",
      code: "INVALID_ACTION_INPUT",
      message: "calendar.read input does not match method schema",
      retryable: true,
    });
    expect(schema.status).toBe("error");
    expect(texts(schema, "title")).toEqual(["Couldn't complete calendar.read"]);
    expect(texts(schema, "body")).toEqual(["calendar.read input does not match method schema"]);
    expect(ofType(schema, "badge")[0]?.status).toBe("error");
    expect(ofType(schema, "key_value")[0]?.items).toEqual([{ label: "Error code", value: "INVALID_ACTION_INPUT" }]);
    expect(texts(schema, "caption")).toEqual(["This may work if you try again."]);
  });

  it("writes the card in the requested locale and falls back to English", () => {
    const zh = compileUiHints({ kind: "calendar.event", action: "created", event: sync }, { locale: "zh-cn" });
    expect(zh.locale).toBe("zh-CN");
    expect(texts(zh, "title")).toEqual(["日程已创建"]);
    const fallback = compileUiHints({ kind: "calendar.events", events: [] }, { locale: "not a locale!" });
    expect(fallback.locale).toBe("en");
    expect(texts(fallback, "title")).toEqual(["Calendar"]);
  });

  it("clips text longer than a card field allows instead of failing", () => {
    const schema = compileUiHints({ kind: "calendar.events", events: [{ ...sync, title: "x".repeat(1_000) }] });
    expect(ofType(schema, "calendar_event")[0]?.title).toHaveLength(200);
  });
});

describe("compileStoredUiHints", () => {
  it("compiles stored hints and returns null for absent or outdated ones", () => {
    expect(compileStoredUiHints({ kind: "contacts.list", contacts: [] })?.status).toBe("info");
    expect(compileStoredUiHints(null)).toBeNull();
    expect(compileStoredUiHints({ kind: "weather.forecast" })).toBeNull();
    expect(compileStoredUiHints({ kind: "calendar.events", events: [{ title: "x", start: "2026-04-21 10:00" }] })).toBeNull();
  });
});

describe("uiHintsSchema", () => {
  it("rejects unknown kinds and unknown keys", () => {
    expect(uiHintsSchema.safeParse({ kind: "calendar.events", events: [], html: "<b>" }).success).toBe(false);
    expect(uiHintsSchema.safeParse({ kind: "calendar.event", action: "moved", event: sync }).success).toBe(false);
  });
});
