import "server-only";
import { parseIntent, type DayRef, type DemoIntent } from "./demo-intents";
import {
  CONTACT_KEYS,
  EVENT_KEYS,
  FACT_KEYS,
  HELP_TEXT,
  HELP_TEXT_ZH,
  writtenInChinese,
  bestContacts,
  dayLabel,
  eventLine,
  eventTable,
  failureReply,
  field,
  listIn,
  parseToolResult,
  toSecondPerson,
  type ToolResult,
} from "./demo-replies";
import { addDays, formatDate, zonedIso } from "../../lib/time";
import { demoSummary, SUMMARY_REQUEST } from "../summary-prompt";

// The demo model's decision for one step, from the request and the tool results of this
// turn so far: call project_cli next, or answer. Pure and deterministic given now and zone.

export type ProjectCliArgs = { module: string; method: string; input: Record<string, unknown> };
export type DemoExchange = { args: ProjectCliArgs | null; output: string };
export type DemoAction = { type: "tool"; args: ProjectCliArgs } | { type: "text"; text: string };

/** A turn never takes more than this many tool calls, whatever the results say. */
const MAX_DEMO_CALLS = 3;

const call = (module: string, method: string, input: Record<string, unknown>): DemoAction => ({ type: "tool", args: { module, method, input } });
const say = (text: string): DemoAction => ({ type: "text", text });

// Memory keys are snake_case starting with a letter (project_cli's memory schema).
function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 48)
    .replace(/_+$/, "");
  return s && !/^[a-z]/.test(s) ? `fact_${s}` : s;
}

function thirdPerson(verb: string): string {
  if (/(s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

const IRREGULAR: Record<string, string> = { am: "is", "'m": "is", have: "has", "don't": "doesn't", do: "does", was: "was", can: "can", "can't": "can't", will: "will", "won't": "won't" };
const ADVERB = /^(usually|always|never|often|sometimes|mostly|really|generally|normally|rarely)$/i;

/** A statement about the user as a memory fact: "my X is Y" → {x: Y}; "I prefer mornings" → {prefers_mornings: "Prefers mornings"}. */
export function factFromStatement(statement: string): { key: string; value: string } {
  const my = /^my\s+(.+?)\s+(?:is|are)\s+(.+)$/i.exec(statement);
  if (my && slug(my[1]!)) return { key: slug(my[1]!), value: my[2]! };
  const words = statement.replace(/^I'm\b/i, "I 'm").split(/\s+/);
  let value = statement;
  if (words[0] === "I" && words.length > 1) {
    const rest = words.slice(1);
    const adverbs: string[] = [];
    while (rest.length > 1 && ADVERB.test(rest[0]!)) adverbs.push(rest.shift()!);
    const verb = rest.shift()!;
    const conjugated = IRREGULAR[verb.toLowerCase()] ?? thirdPerson(verb.toLowerCase());
    value = [...adverbs, conjugated, ...rest].join(" ");
  }
  value = value.charAt(0).toUpperCase() + value.slice(1);
  const key = slug(value.split(/\s+/).slice(0, 4).join(" ")) || "note";
  return { key, value };
}

function calendarReply(intent: Extract<DemoIntent, { kind: "calendar.day" | "calendar.week" }>, result: Extract<ToolResult, { ok: true }>, timeZone: string): string {
  const events = listIn(result.data, EVENT_KEYS);
  const when = intent.kind === "calendar.day" ? `${intent.day.label} (${dayLabel(intent.day.date, timeZone)})` : intent.label;
  const When = when.charAt(0).toUpperCase() + when.slice(1);
  if (events.length === 0) return `Your calendar is clear ${when}: no events.`;
  const head = `${When} you have ${events.length === 1 ? "1 event" : `${events.length} events`}:`;
  if (intent.kind === "calendar.week") return `${head}\n\n${eventTable(events, timeZone)}`;
  return `${head}\n${events.map((e) => eventLine(e, timeZone)).join("\n")}`;
}

function contactsReply(query: string | null, result: Extract<ToolResult, { ok: true }>): string {
  const contacts = bestContacts(listIn(result.data, CONTACT_KEYS), query);
  if (contacts.length === 0) return query ? `I couldn't find a contact matching “${query}”.` : "You don't have any contacts yet.";
  const line = (c: Record<string, unknown>) => {
    const details = [field(c, "email"), field(c, "phone"), field(c, "company")].filter(Boolean).join(", ");
    return `- ${field(c, "name") ?? "(no name)"}${details ? `: ${details}` : ""}`;
  };
  const first = contacts[0]!;
  const email = field(first, "email");
  if (query && contacts.length === 1 && email) return `${field(first, "name") ?? query}'s email is ${email}.`;
  const head = query ? `I found ${contacts.length === 1 ? "1 contact" : `${contacts.length} contacts`} matching “${query}”:` : `You have ${contacts.length === 1 ? "1 contact" : `${contacts.length} contacts`}:`;
  return `${head}\n${contacts.map(line).join("\n")}`;
}

function memoryReply(result: Extract<ToolResult, { ok: true }>): string {
  const facts = listIn(result.data, FACT_KEYS);
  if (facts.length === 0) return "I don't remember anything about you yet. Tell me “remember that …” and I will.";
  return `Here is what I remember about you:\n${facts.map((f) => `- ${field(f, "value") ?? field(f, "key") ?? ""}`).join("\n")}`;
}

function people(data: unknown, key: string): string[] {
  const list = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[key] : undefined;
  return listIn(list, []).map((p) => field(p, "name", "email") ?? "").filter(Boolean);
}

function scheduleReply(intent: Extract<DemoIntent, { kind: "schedule" }>, create: DemoExchange, timeZone: string): string {
  const result = parseToolResult(create.output);
  if (!result.ok) return failureReply(result);
  const { day, time } = intent as { day: DayRef; time: { hour: number; minute: number } };
  const when = `${dayLabel(day.date, timeZone)} at ${String(time.hour).padStart(2, "0")}:${String(time.minute).padStart(2, "0")}`;
  const invited = people(result.data, "invited");
  const notInvited = people(result.data, "not_invited");
  const notes = [
    invited.length > 0 ? ` I invited ${invited.join(", ")}.` : "",
    notInvited.length > 0 ? ` ${notInvited.join(", ")} ${notInvited.length === 1 ? "isn't a Dispatch user" : "aren't Dispatch users"}, so I only put the name in the title.` : "",
  ].join("");
  return `Done: “${String(create.args!.input.title)}” is on your calendar for ${when} (${intent.durationMinutes} minutes).${notes}`;
}

function schedulePlan(intent: Extract<DemoIntent, { kind: "schedule" }>, turn: readonly DemoExchange[], timeZone: string): DemoAction {
  if (!intent.day || !intent.time) {
    return say(`I can schedule that, but I need ${!intent.day ? "a day" : "a time"} too, for example: “schedule a ${intent.what} with Ana on Friday at 10 for 30 minutes”.`);
  }
  const create = turn.find((x) => x.args?.module === "calendar" && x.args.method === "create");
  if (create) return say(scheduleReply(intent, create, timeZone));
  const lookup = turn.find((x) => x.args?.module === "contacts");
  if (intent.person && !lookup) return call("contacts", "read", { query: intent.person.split(/\s+/)[0]! });
  const contacts = lookup ? parseToolResult(lookup.output) : null;
  const first = contacts?.ok ? bestContacts(listIn(contacts.data, CONTACT_KEYS), intent.person)[0] : undefined;
  const name = (first && field(first, "name")) ?? intent.person;
  const email = first ? field(first, "email") : null;
  const what = intent.what.charAt(0).toUpperCase() + intent.what.slice(1);
  return call("calendar", "create", {
    title: name ? `${what} with ${name}` : what,
    start_at: zonedIso({ ...intent.day.date, ...intent.time }, timeZone),
    duration_minutes: intent.durationMinutes,
    time_zone: timeZone,
    // project_cli invites Dispatch users and reports the other addresses as not invited.
    ...(email ? { attendees: [email] } : {}),
  });
}

function imageReply(count: number): string {
  const got = count === 1 ? "I got your image" : `I got your ${count} images`;
  return `${got}, but this offline demo model cannot see pictures. Connect a vision model (LLM_BASE_URL, LLM_API_KEY and LLM_MODEL) and ask again to have ${count === 1 ? "it" : "them"} described.`;
}

/** Decides the demo model's next step for the latest user request. */
export function planDemoTurn(opts: { userText: string; images?: number; turn: readonly DemoExchange[]; now: Date; timeZone: string }): DemoAction {
  const { turn, timeZone } = opts;
  // The host asking for a conversation summary (summary_tail): a deterministic one.
  if (opts.userText.startsWith(SUMMARY_REQUEST)) return say(demoSummary(opts.userText));
  const intent = parseIntent(opts.userText, opts.now, timeZone);
  const last = turn.at(-1);
  const lastResult = last ? parseToolResult(last.output) : null;
  if (turn.length >= MAX_DEMO_CALLS && lastResult) return say(lastResult.ok ? "Done." : failureReply(lastResult));

  switch (intent.kind) {
    case "calendar.day":
    case "calendar.week": {
      if (!lastResult) {
        if (intent.kind === "calendar.day") return call("calendar", "read", { mode: "day", date: formatDate(intent.day.date), time_zone: timeZone });
        const start = zonedIso({ ...intent.start, hour: 0, minute: 0 }, timeZone);
        return call("calendar", "read", { mode: "range", start_at: start, end_at: zonedIso({ ...addDays(intent.start, 7), hour: 0, minute: 0 }, timeZone) });
      }
      return say(lastResult.ok ? calendarReply(intent, lastResult, timeZone) : failureReply(lastResult));
    }
    case "schedule":
      return schedulePlan(intent, turn, timeZone);
    case "memory.remember": {
      if (!lastResult) return call("memory", "update", { facts: [factFromStatement(intent.statement)] });
      return say(lastResult.ok ? `Got it. I'll remember that ${toSecondPerson(intent.statement)}.` : failureReply(lastResult));
    }
    case "memory.recall":
      if (!lastResult) return call("memory", "read", {});
      return say(lastResult.ok ? memoryReply(lastResult) : failureReply(lastResult));
    case "contacts.find":
      if (!lastResult) return call("contacts", "read", intent.query ? { query: intent.query } : {});
      return say(lastResult.ok ? contactsReply(intent.query, lastResult) : failureReply(lastResult));
    case "greeting":
      return say(opts.images ? imageReply(opts.images) : `Hi! ${HELP_TEXT}`);
    case "unsupported":
      return say(`I can't ${intent.what}: this offline demo only works with your calendar, contacts and memory.`);
    case "unknown":
      if (opts.images) return say(imageReply(opts.images));
      return say(writtenInChinese(opts.userText) ? HELP_TEXT_ZH : HELP_TEXT);
  }
}
