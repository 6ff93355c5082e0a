import { z } from "zod";

// UiSchema 2.0: the wire format for tool cards, sent in TOOL_CALL_RESULT `metadata.ui_schema`
// and in /history `uiSchema`. `ui-schema.md` was never provided, so this file is the
// definition. Every object is strict: a renderer that meets a key or node type it does not
// know must refuse the card rather than guess. The browser imports this file too, so it
// must stay free of server-only code.

/** Most children a stack or list may hold; the compiler truncates longer results. */
export const MAX_CHILDREN = 100;

/** Deepest nesting of stacks and lists `parseUiSchema` accepts; real cards use three or four. */
export const MAX_DEPTH = 16;

const MAX_SHORT_TEXT = 200;
const MAX_LONG_TEXT = 4_000;

// Building a DateTimeFormat costs tens of microseconds, and every calendar card checks its
// zones several times (hints, then the compiled schema; /history compiles a card per tool
// row). Only valid names are kept, and only so many: Intl also accepts case variants.
const knownTimeZones = new Set<string>();
const MAX_KNOWN_TIME_ZONES = 1_000;

function isTimeZone(value: string): boolean {
  if (knownTimeZones.has(value)) return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
  } catch {
    return false;
  }
  if (knownTimeZones.size < MAX_KNOWN_TIME_ZONES) knownTimeZones.add(value);
  return true;
}

function isLocale(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

const nodeType = <T extends string>(type: T) => z.literal(type).describe("Node type; decides how the node renders");
const shortText = () => z.string().trim().min(1).max(MAX_SHORT_TEXT);
const longText = () => z.string().trim().min(1).max(MAX_LONG_TEXT);

/** An instant as ISO-8601 with a `Z` or `±hh:mm` offset, so it is never ambiguous. */
export const isoDateTimeSchema = z.iso
  .datetime({ offset: true })
  .describe("ISO-8601 date-time with an explicit offset, e.g. 2026-04-21T10:00:00+08:00");

/** An IANA time zone name the runtime's Intl knows, e.g. `Asia/Shanghai`. */
export const timeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: "Unknown IANA time zone" })
  .describe("IANA time zone name, e.g. Asia/Shanghai");

export const uiStatusSchema = z
  .enum(["info", "success", "warning", "error", "pending"])
  .describe("Outcome the card reports: info for reads, success for completed changes, error for failures");

export const uiThemeSchema = z
  .enum(["default", "light", "dark"])
  .describe("Colour scheme: default follows the host page, light and dark force one");

export const uiTextNodeSchema = z
  .strictObject({
    type: nodeType("text"),
    content: longText().describe("Plain text; never interpreted as HTML or Markdown"),
    role: z
      .enum(["title", "subtitle", "body", "caption"])
      .default("body")
      .describe("Typographic role: title heads the card, subtitle heads a group, body is prose, caption is secondary detail"),
  })
  .describe("A run of plain text");

export const uiBadgeNodeSchema = z
  .strictObject({
    type: nodeType("badge"),
    label: shortText().describe("Short text shown inside the badge"),
    status: z
      .enum(["info", "success", "warning", "error", "pending", "neutral"])
      .default("neutral")
      .describe("Colour of the badge; the label must carry the meaning on its own"),
  })
  .describe("A small status pill");

export const uiDividerNodeSchema = z
  .strictObject({ type: nodeType("divider") })
  .describe("A thematic break between groups of nodes");

export const uiKeyValueNodeSchema = z
  .strictObject({
    type: nodeType("key_value"),
    items: z
      .array(
        z.strictObject({
          label: shortText().describe("Name of the fact, e.g. Location"),
          value: longText().describe("The fact as display text"),
        }),
      )
      .min(1)
      .max(MAX_CHILDREN)
      .describe("Label/value rows, shown in order"),
  })
  .describe("A description list of label/value rows");

export const uiDateTimeNodeSchema = z
  .strictObject({
    type: nodeType("datetime"),
    value: isoDateTimeSchema.describe("The instant to show"),
    timeZone: timeZoneSchema.optional().describe("Zone to display the instant in; the value's own offset when absent"),
    format: z
      .enum(["date", "time", "datetime"])
      .default("datetime")
      .describe("Which parts of the instant to show"),
    label: shortText().optional().describe("Caption shown before the value, e.g. Updated"),
  })
  .describe("A single instant, formatted by the renderer for the card's locale");

const attendeeSchema = z.strictObject({
  name: shortText().optional().describe("Display name of the attendee"),
  email: shortText().optional().describe("Email address of the attendee"),
  response: z
    .enum(["accepted", "declined", "tentative", "pending"])
    .optional()
    .describe("The attendee's answer to the invitation"),
});

export const uiCalendarEventNodeSchema = z
  .strictObject({
    type: nodeType("calendar_event"),
    id: shortText().optional().describe("Stable event id, for keys and links; not shown"),
    title: shortText().describe("Event title"),
    start: isoDateTimeSchema.describe("When the event starts"),
    end: isoDateTimeSchema
      .optional()
      .describe("When the event ends, exclusive (an all-day event on the 21st ends at midnight starting the 22nd); absent for open-ended events"),
    allDay: z.boolean().default(false).describe("True when only the dates matter, not the times"),
    timeZone: timeZoneSchema.optional().describe("Zone the event is scheduled in; times are shown in it"),
    location: longText().optional().describe("Where the event takes place"),
    description: longText().optional().describe("Notes attached to the event"),
    organizer: attendeeSchema.omit({ response: true }).optional().describe("Who owns the event"),
    attendees: z.array(attendeeSchema).max(MAX_CHILDREN).optional().describe("People invited to the event"),
    status: z
      .enum(["confirmed", "tentative", "cancelled"])
      .default("confirmed")
      .describe("Whether the event will happen"),
  })
  .describe("One calendar event");

export const uiContactNodeSchema = z
  .strictObject({
    type: nodeType("contact"),
    id: shortText().optional().describe("Stable contact id, for keys; not shown"),
    name: shortText().describe("Display name"),
    email: shortText().optional().describe("Email address, shown as a mailto link"),
    phone: shortText().optional().describe("Phone number, shown as a tel link"),
    company: shortText().optional().describe("Organisation the contact belongs to"),
    jobTitle: shortText().optional().describe("The contact's role at the company"),
  })
  .describe("One person from the address book");

export const uiStackNodeSchema = z
  .strictObject({
    type: nodeType("stack"),
    appearance: z
      .enum(["plain", "card", "section"])
      .default("plain")
      .describe("Chrome around the group: card is a bordered surface, section a subtle inset, plain none"),
    direction: z
      .enum(["vertical", "horizontal"])
      .default("vertical")
      .describe("Axis the children are laid out on; horizontal wraps on narrow screens"),
    // The annotation breaks the type cycle between a stack and the node union it contains.
    get children(): z.ZodArray<typeof uiNodeSchema> {
      return z.array(uiNodeSchema).min(1).max(MAX_CHILDREN).describe("Nodes in the group, in display order");
    },
  })
  .describe("A layout group of nodes");

export const uiListNodeSchema = z
  .strictObject({
    type: nodeType("list"),
    label: shortText().optional().describe("Accessible name of the list, e.g. Events"),
    ordered: z.boolean().default(false).describe("True when the order of the items carries meaning"),
    get items(): z.ZodArray<typeof uiNodeSchema> {
      return z.array(uiNodeSchema).min(1).max(MAX_CHILDREN).describe("One node per list item");
    },
  })
  .describe("A list of like items, e.g. events or contacts");

export const uiNodeSchema = z
  .discriminatedUnion("type", [
    uiStackNodeSchema,
    uiTextNodeSchema,
    uiBadgeNodeSchema,
    uiDividerNodeSchema,
    uiKeyValueNodeSchema,
    uiListNodeSchema,
    uiDateTimeNodeSchema,
    uiCalendarEventNodeSchema,
    uiContactNodeSchema,
  ])
  .describe("Any UiSchema node, told apart by `type`");

export const uiMetaSchema = z
  .strictObject({
    requestId: shortText().optional().describe("Id of the HTTP request or run that produced the card"),
    toolId: shortText().optional().describe("Tool call id the card renders"),
    traceId: shortText().optional().describe("Trace id for correlating logs"),
    userId: shortText().optional().describe("Id of the user the card belongs to"),
  })
  .describe("Correlation ids; never shown to the user");

export const uiSchemaDocumentSchema = z
  .strictObject({
    version: z.literal("2.0").describe("UiSchema version; only 2.0 exists"),
    locale: z
      .string()
      .min(2)
      .max(35)
      .refine(isLocale, { message: "Not a BCP 47 language tag" })
      .describe("BCP 47 language tag of the card's text and date formats, e.g. zh-CN"),
    status: uiStatusSchema,
    theme: uiThemeSchema,
    meta: uiMetaSchema.optional(),
    root: uiNodeSchema.describe("The node the card renders"),
  })
  .describe("A UiSchema 2.0 document: one tool card");

export type UiSchema = z.infer<typeof uiSchemaDocumentSchema>;
export type UiSchemaInput = z.input<typeof uiSchemaDocumentSchema>;
export type UiSchemaMeta = z.infer<typeof uiMetaSchema>;
export type UiStatus = z.infer<typeof uiStatusSchema>;
export type UiNode = z.infer<typeof uiNodeSchema>;
export type UiNodeInput = z.input<typeof uiNodeSchema>;
export type UiNodeType = UiNode["type"];
export type UiNodeOf<T extends UiNodeType> = Extract<UiNode, { type: T }>;

export type ParseUiSchemaResult =
  | { success: true; data: UiSchema }
  | { success: false; error: string };

/** Validates an untrusted value as a UiSchema 2.0 document; never throws. */
export function parseUiSchema(value: unknown): ParseUiSchemaResult {
  if (exceedsDepth(value)) return { success: false, error: `Nodes are nested deeper than ${MAX_DEPTH} levels` };
  try {
    const parsed = uiSchemaDocumentSchema.safeParse(value);
    if (parsed.success) return { success: true, data: parsed.data };
    return { success: false, error: z.prettifyError(parsed.error) };
  } catch (err) {
    // Refinements run user-supplied strings through Intl; keep the promise never to throw.
    return { success: false, error: err instanceof Error ? err.message : "Invalid UiSchema document" };
  }
}

// Checked before zod, which recurses per level and would overflow on a hostile document.
function exceedsDepth(value: unknown): boolean {
  const root = (value as { root?: unknown } | null)?.root;
  const pending: Array<{ node: unknown; depth: number }> = [{ node: root, depth: 1 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    if (depth > MAX_DEPTH) return true;
    if (typeof node !== "object" || node === null) continue;
    const { children, items } = node as { children?: unknown; items?: unknown };
    for (const nested of [children, items]) {
      if (Array.isArray(nested)) for (const child of nested) pending.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
