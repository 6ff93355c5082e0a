import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { compileUiHints } from "@/server/tools/project-cli/cards";
import type { UiNodeInput, UiSchemaInput } from "@/server/ui-schema/schema";
import { UiSchemaView } from "./ui-schema-view";
import { I18nContext } from "@/components/i18n/i18n-provider";
import { dictionaries } from "@/components/i18n/dictionaries";

function card(root: UiNodeInput, extra: Partial<UiSchemaInput> = {}): UiSchemaInput {
  return { version: "2.0", locale: "en-US", status: "info", theme: "default", root, ...extra };
}

// ICU versions differ on whether spaces are no-break ones; assert on the words. The viewer's
// zone comes from the page's I18n context, as in the chat.
function render(schema: unknown, timeZone = "Asia/Shanghai"): string {
  return renderToStaticMarkup(
    <I18nContext value={{ locale: "en", timeZone, chosenTimeZone: null, t: dictionaries.en }}>
      <UiSchemaView schema={schema} />
    </I18nContext>,
  ).replace(/[\u00a0\u202f]/g, " ");
}

const event: UiNodeInput = {
  type: "calendar_event",
  id: "evt_123",
  title: "Project sync",
  start: "2026-04-21T10:00:00+08:00",
  end: "2026-04-21T11:00:00+08:00",
  timeZone: "Asia/Shanghai",
  location: "Room 4.01",
  organizer: { name: "Li Wei", email: "li@example.com" },
  attendees: [{ name: "Ann Lee", email: "ann@example.com", response: "accepted" }],
};

const contact: UiNodeInput = { type: "contact", name: "Ann Lee", email: "ann@example.com", phone: "+1 (555) 0100", company: "Acme", jobTitle: "CTO" };

const everyNode = card({
  type: "stack",
  appearance: "card",
  children: [
    { type: "text", role: "title", content: "Tuesday" },
    { type: "badge", label: "Updated", status: "success" },
    { type: "divider" },
    { type: "key_value", items: [{ label: "Error code", value: "NOT_FOUND" }] },
    { type: "datetime", value: "2026-04-21T09:00:00Z", format: "datetime", label: "Last updated" },
    { type: "list", label: "Events", items: [event, contact] },
  ],
});

describe("UiSchemaView", () => {
  it("renders every node type with its test id inside the card", () => {
    const html = render(everyNode);
    expect(html).toContain('data-testid="ui-schema-card"');
    for (const type of ["stack", "text", "badge", "divider", "key_value", "datetime", "list", "calendar_event", "contact"]) {
      expect(html).toContain(`data-testid="ui-node-${type}"`);
    }
    expect(html).not.toContain("ui-schema-fallback");
  });

  it("uses semantic elements and names the card after its title", () => {
    const html = render(everyNode);
    expect(html).toMatch(/<section[^>]*aria-label="Tuesday"[^>]*lang="en-US"|<section[^>]*lang="en-US"[^>]*aria-label="Tuesday"/);
    expect(html).toMatch(/<h3[^>]*>Tuesday<\/h3>/);
    expect(html).toMatch(/<dl[^>]*><div[^>]*><dt>Error code<\/dt><dd>NOT_FOUND<\/dd><\/div><\/dl>/);
    expect(html).toMatch(/<ul[^>]*aria-label="Events"/);
    expect(html).toContain("<hr");
    expect(html).toMatch(/<article[^>]*aria-labelledby="[^"]+"/);
  });

  it("formats event times on a 24-hour clock in the viewer's zone and keeps the ISO value machine-readable", () => {
    const html = render(card(event));
    expect(html).toContain('<time dateTime="2026-04-21T10:00:00+08:00">Tue, Apr 21, 2026, 10:00</time>');
    expect(html).toContain('<time dateTime="2026-04-21T11:00:00+08:00">11:00</time>');
    expect(render(card(event), "America/New_York")).toContain('<time dateTime="2026-04-21T10:00:00+08:00">Mon, Apr 20, 2026, 22:00</time>');
    expect(html).toContain("Room 4.01");
    expect(html).toContain('<a href="mailto:li@example.com">Li Wei</a>');
    expect(html).toMatch(/<ul[^>]*aria-label="Attendees"[^>]*>.*Ann Lee.*\(accepted\)/);
  });

  it("shows an instant in the viewer's zone, and all-day events by the date they were made for", () => {
    expect(render(card({ type: "datetime", value: "2026-04-21T23:30:00-05:00", format: "time" }))).toContain(">12:30</time>");
    const allDay = render(card({ ...event, allDay: true, start: "2026-04-21T00:00:00+08:00", end: "2026-04-22T00:00:00+08:00" }));
    expect(allDay).toContain(">Tue, Apr 21, 2026</time> · All day");
    expect(allDay).not.toContain("Apr 22");
  });

  it("marks cancelled events in words, not only in style", () => {
    const html = render(card({ ...event, status: "cancelled" }));
    expect(html).toContain('data-status="cancelled"');
    expect(html).toContain(">Cancelled</span>");
  });

  it("links contact details and labels them for screen readers", () => {
    const html = render(card(contact));
    expect(html).toContain("<address");
    expect(html).toContain('<a href="mailto:ann@example.com">ann@example.com</a>');
    expect(html).toContain('<a href="tel:+15550100">+1 (555) 0100</a>');
    expect(html).toContain("CTO · Acme");
    expect(html).toMatch(/Email: <\/span>/);
  });

  it("renders the words of the card's locale", () => {
    const html = render(card(event, { locale: "zh-CN" }));
    expect(html).toContain('lang="zh-CN"');
    expect(html).toContain("组织者");
    expect(html).toContain("2026年4月21日");
  });

  it("applies the document's theme and status for styling", () => {
    const html = render(card({ type: "text", content: "x" }, { theme: "dark", status: "error" }));
    expect(html).toContain('data-theme="dark"');
    expect(html).toContain('data-status="error"');
  });

  it("renders the spec example and every compiled card without falling back", () => {
    const specExample = card(
      {
        type: "stack",
        appearance: "card",
        children: [
          { type: "text", content: "日程已创建", role: "title" },
          { type: "badge", label: "SUCCESS", status: "success" },
          { type: "text", content: "您的会议日程创建成功", role: "body" },
        ],
      },
      { locale: "zh-CN", status: "success" },
    );
    expect(render(specExample)).toContain(">日程已创建</h3>");
    const compiled = compileUiHints({ kind: "calendar.events", events: [] });
    expect(render(compiled)).toContain("No events in this period.");
  });

  it("falls back with a message and the raw JSON for an unknown node", () => {
    const root = { type: "stack", children: [{ type: "text", content: "ok" }, { type: "iframe", src: "https://evil.example" }] };
    const html = render({ ...card({ type: "divider" }), root });
    expect(html).toContain('data-testid="ui-schema-card"');
    expect(html).toContain('data-state="invalid"');
    expect(html).toContain('data-testid="ui-schema-fallback"');
    expect(html).toContain("This card can&#x27;t be displayed");
    expect(html).toMatch(/<details><summary>Show raw data<\/summary>/);
    expect(html).toContain("&quot;iframe&quot;");
    expect(html).not.toContain("<iframe");
  });

  it("falls back for junk instead of throwing", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const junk of [null, undefined, "text", 7, { version: "1.0" }, cyclic]) {
      expect(render(junk)).toContain('data-testid="ui-schema-fallback"');
    }
  });

  it("never renders strings as HTML", () => {
    const html = render(card({ type: "text", content: '<img src=x onerror="alert(1)">' }));
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    const bad = render(card({ type: "contact", name: "x", email: "javascript:alert(1)//@x.y" }));
    expect(bad).not.toContain('href="javascript:');
  });
});
