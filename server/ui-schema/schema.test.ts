import { describe, expect, it } from "vitest";
import { MAX_CHILDREN, parseUiSchema, type UiNodeInput } from "./schema";

// The example under "History API" in spec/agent-run-input.md, verbatim.
const specExample = {
  version: "2.0",
  locale: "zh-CN",
  status: "success",
  theme: "default",
  root: {
    type: "stack",
    appearance: "card",
    children: [
      { type: "text", content: "日程已创建", role: "title" },
      { type: "badge", label: "SUCCESS", status: "success" },
      { type: "text", content: "您的会议日程创建成功", role: "body" },
    ],
  },
};

function doc(root: unknown, extra: Record<string, unknown> = {}) {
  return { version: "2.0", locale: "en-US", status: "info", theme: "light", root, ...extra };
}

const everyNode: UiNodeInput = {
  type: "stack",
  appearance: "section",
  direction: "vertical",
  children: [
    { type: "text", content: "Heading", role: "subtitle" },
    { type: "badge", label: "New", status: "pending" },
    { type: "divider" },
    { type: "key_value", items: [{ label: "Room", value: "4.01" }] },
    { type: "datetime", value: "2026-04-21T10:00:00+08:00", timeZone: "Asia/Shanghai", format: "date", label: "Day" },
    {
      type: "list",
      label: "Things",
      ordered: true,
      items: [
        {
          type: "calendar_event",
          id: "evt_1",
          title: "Project sync",
          start: "2026-04-21T10:00:00+08:00",
          end: "2026-04-21T11:00:00+08:00",
          timeZone: "Asia/Shanghai",
          location: "Room 4.01",
          organizer: { name: "Li Wei", email: "li@example.com" },
          attendees: [{ email: "ann@example.com", response: "accepted" }],
          status: "tentative",
        },
        { type: "contact", name: "Ann Lee", email: "ann@example.com", phone: "+1 555 0100", company: "Acme", jobTitle: "CTO" },
      ],
    },
  ],
};

describe("parseUiSchema", () => {
  it("accepts the spec's History API example unchanged", () => {
    const parsed = parseUiSchema(specExample);
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    expect(parsed.data.root).toMatchObject({ type: "stack", appearance: "card" });
  });

  it("accepts a document using every node type, with meta", () => {
    const parsed = parseUiSchema(doc(everyNode, { meta: { toolId: "call_1", requestId: "req_1", traceId: "t", userId: "u" } }));
    expect(parsed.success ? "ok" : parsed.error).toBe("ok");
  });

  it("fills documented defaults for optional presentation fields", () => {
    const parsed = parseUiSchema(doc({ type: "stack", children: [{ type: "text", content: "Hi" }, { type: "badge", label: "x" }] }));
    if (!parsed.success) throw new Error(parsed.error);
    expect(parsed.data.root).toEqual({
      type: "stack",
      appearance: "plain",
      direction: "vertical",
      children: [
        { type: "text", content: "Hi", role: "body" },
        { type: "badge", label: "x", status: "neutral" },
      ],
    });
  });

  it("rejects an unknown node type, even deep inside the tree", () => {
    const nested = doc({ type: "stack", children: [{ type: "list", items: [{ type: "iframe", src: "https://x" }] }] });
    const parsed = parseUiSchema(nested);
    expect(parsed.success).toBe(false);
    expect(parseUiSchema(doc({ type: "html", content: "<b>x</b>" })).success).toBe(false);
  });

  it("rejects unknown keys on nodes, nested objects and the document", () => {
    expect(parseUiSchema(doc({ type: "text", content: "x", html: "<b>x</b>" })).success).toBe(false);
    expect(parseUiSchema(doc({ type: "divider", style: "dashed" })).success).toBe(false);
    expect(parseUiSchema({ ...specExample, extra: true }).success).toBe(false);
    expect(parseUiSchema({ ...specExample, meta: { toolId: "a", secret: "b" } }).success).toBe(false);
    expect(
      parseUiSchema(doc({ type: "calendar_event", title: "x", start: "2026-04-21T10:00:00Z", attendees: [{ email: "a", token: "t" }] })).success,
    ).toBe(false);
  });

  it("rejects the wrong version, status, theme, locale and roles", () => {
    expect(parseUiSchema({ ...specExample, version: "1.0" }).success).toBe(false);
    expect(parseUiSchema({ ...specExample, status: "ok" }).success).toBe(false);
    expect(parseUiSchema({ ...specExample, theme: "blue" }).success).toBe(false);
    expect(parseUiSchema({ ...specExample, locale: "not a locale!" }).success).toBe(false);
    expect(parseUiSchema(doc({ type: "text", content: "x", role: "h1" })).success).toBe(false);
  });

  it("requires datetimes with an offset and real time zones", () => {
    const event = (extra: object) => doc({ type: "calendar_event", title: "x", start: "2026-04-21T10:00:00+08:00", ...extra });
    expect(parseUiSchema(event({})).success).toBe(true);
    expect(parseUiSchema(event({ start: "2026-04-21T10:00:00" })).success).toBe(false);
    expect(parseUiSchema(event({ start: "tomorrow" })).success).toBe(false);
    expect(parseUiSchema(event({ timeZone: "Mars/Olympus" })).success).toBe(false);
  });

  it("rejects empty containers and oversized ones", () => {
    expect(parseUiSchema(doc({ type: "stack", children: [] })).success).toBe(false);
    expect(parseUiSchema(doc({ type: "list", items: [] })).success).toBe(false);
    const many = Array.from({ length: MAX_CHILDREN + 1 }, () => ({ type: "divider" }));
    expect(parseUiSchema(doc({ type: "stack", children: many })).success).toBe(false);
  });

  it("reports a readable error and never throws on junk", () => {
    for (const junk of [null, undefined, 42, "x", [], { version: "2.0" }]) {
      const parsed = parseUiSchema(junk);
      expect(parsed.success).toBe(false);
      if (!parsed.success) expect(parsed.error.length).toBeGreaterThan(0);
    }
    let deep: unknown = { type: "divider" };
    for (let i = 0; i < 20_000; i++) deep = { type: "stack", children: [deep] };
    expect(parseUiSchema(doc(deep)).success).toBe(false);
  });
});
