import "server-only";
import { addDays, localToday, nextWeekday, parseWeekday, startOfWeek, type LocalDate } from "../../lib/time";

// What the offline demo model understands: a handful of plain phrasings about calendar,
// contacts and memory, parsed with regular expressions against a fixed "now" and zone.
// Deliberately small and predictable; anything else gets an honest "I can't do that".

export type DayRef = { date: LocalDate; label: string };

export type DemoIntent =
  | { kind: "calendar.day"; day: DayRef }
  | { kind: "calendar.week"; start: LocalDate; label: string }
  | { kind: "schedule"; what: string; person: string | null; day: DayRef | null; time: { hour: number; minute: number } | null; durationMinutes: number }
  | { kind: "memory.remember"; statement: string }
  | { kind: "memory.recall" }
  | { kind: "contacts.find"; query: string | null }
  | { kind: "greeting" }
  | { kind: "unsupported"; what: string }
  | { kind: "unknown" };

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH = "(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?";
const WEEKDAY = "(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?";
// A capitalised name of one or two words; a command word at the start of a sentence ("Find Ana's
// email") is not part of it.
const NOT_A_NAME = "(?!(?:Find|Look|Search|Show|Get|Give|Tell|What|Who|Where|Send|Please|Can|Could|Do|Does|I|My)\\b)";
const NAME_WORD = `${NOT_A_NAME}[A-Z][\\p{L}’-]*(?:'(?!s\\b)\\p{L}+)?`;
const NAME = `(${NAME_WORD}(?:\\s+${NAME_WORD})?)`;

function monthIndex(word: string): number {
  return MONTHS.indexOf(word.slice(0, 3).toLowerCase());
}

function fullWeekday(word: string): string {
  const day = parseWeekday(word.slice(0, 3));
  return day ? day[0]!.toUpperCase() + day.slice(1) : word;
}

/** A day named in the text ("today", "tomorrow", "on Friday", "2026-01-05", "5 January"), or null. */
export function parseDay(text: string, today: LocalDate): DayRef | null {
  const t = text.toLowerCase();
  if (/\bday after tomorrow\b/.test(t)) return { date: addDays(today, 2), label: "the day after tomorrow" };
  if (/\btomorrow\b/.test(t)) return { date: addDays(today, 1), label: "tomorrow" };
  if (/\byesterday\b/.test(t)) return { date: addDays(today, -1), label: "yesterday" };
  if (/\b(today|tonight)\b/.test(t)) return { date: today, label: "today" };
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(t);
  if (iso) return { date: { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) }, label: `on ${iso[0]}` };
  const dayMonth = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}`).exec(t);
  const monthDay = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b`).exec(t);
  const md = dayMonth ? { month: monthIndex(dayMonth[2]!), day: Number(dayMonth[1]) } : monthDay ? { month: monthIndex(monthDay[1]!), day: Number(monthDay[2]) } : null;
  if (md && md.month >= 0 && md.day >= 1 && md.day <= 31) {
    const thisYear = { year: today.year, month: md.month + 1, day: md.day };
    const passed = thisYear.month < today.month || (thisYear.month === today.month && thisYear.day < today.day);
    const date = passed ? { ...thisYear, year: today.year + 1 } : thisYear;
    return { date, label: `on ${MONTHS[md.month]![0]!.toUpperCase()}${MONTHS[md.month]!.slice(1)} ${md.day}` };
  }
  const weekday = new RegExp(`\\b(next\\s+)?${WEEKDAY}\\b`).exec(t);
  if (weekday) {
    const day = parseWeekday(weekday[2]!.slice(0, 3))!;
    // "next Friday" is never today; a bare "Friday" is the coming one, today included.
    const date = nextWeekday(weekday[1] ? addDays(today, 1) : today, day);
    return { date, label: `on ${fullWeekday(weekday[2]!)}` };
  }
  return null;
}

/** "at 10", "at 3pm", "14:30", "noon"; a bare hour from 1 to 7 is read as afternoon, as in office talk. */
export function parseTime(text: string): { hour: number; minute: number } | null {
  const t = text.toLowerCase();
  if (/\bnoon\b|\bmidday\b/.test(t)) return { hour: 12, minute: 0 };
  const m = /\bat\s+(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?(?!\s*(?:min|minute|hour|hr))/.exec(t) ?? /\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)/.exec(t) ?? /\b(\d{1,2}):(\d{2})\b()/.exec(t);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = m[2] ? Number(m[2]) : 0;
  const meridiem = m[3]?.[0];
  if (hour > 23 || minute > 59) return null;
  if (meridiem === "p" && hour < 12) hour += 12;
  else if (meridiem === "a" && hour === 12) hour = 0;
  else if (!meridiem && !m[2] && hour >= 1 && hour <= 7) hour += 12;
  return { hour, minute };
}

export function parseDuration(text: string): number | null {
  const t = text.toLowerCase();
  if (/\bhalf an? hour\b/.test(t)) return 30;
  if (/\bquarter of an hour\b/.test(t)) return 15;
  const minutes = /\b(\d{1,3})\s*(?:-\s*)?(?:minutes?|mins?|m)\b/.exec(t);
  if (minutes) return Number(minutes[1]);
  const hours = /\b(\d+(?:\.\d+)?)\s*(?:-\s*)?(?:hours?|hrs?|h)\b/.exec(t) ?? /\b(an?|one|two|three)\s+hours?\b/.exec(t);
  if (!hours) return null;
  const n = { a: 1, an: 1, one: 1, two: 2, three: 3 }[hours[1]!] ?? Number(hours[1]);
  return Math.round(n * 60);
}

const POLITE = "^(?:(?:please|pls|hey|ok|okay|can you|could you|would you|will you|kindly)[\\s,]+)*";

function scheduleIntent(text: string, today: LocalDate): DemoIntent | null {
  const verb = new RegExp(`${POLITE}(schedule|book|set up|arrange|plan|add|create|put)\\b`, "i").exec(text.trim());
  if (!verb) return null;
  const what = /\b(call|meeting|sync|lunch|coffee|chat|catch[- ]up|interview|1:1|one-on-one|appointment|event|dinner|review)\b/i.exec(text)?.[1]?.toLowerCase() ?? "meeting";
  const person = new RegExp(`\\bwith\\s+${NAME}`, "u").exec(text)?.[1] ?? null;
  return { kind: "schedule", what, person, day: parseDay(text, today), time: parseTime(text), durationMinutes: parseDuration(text) ?? 30 };
}

function contactQuery(text: string): string | null | undefined {
  const possessive = new RegExp(`${NAME}(?:'s|’s)\\s+(?:e-?mail|phone|number|address|contact)`, "u").exec(text);
  if (possessive) return possessive[1]!;
  const of = new RegExp(`\\b(?:e-?mail|phone(?: number)?|number|contact(?: details| info)?|address)\\s+(?:of|for)\\s+${NAME}`, "u").exec(text);
  if (of) return of[1]!;
  const lookUp = new RegExp(`\\b(?:look up|find|search for|who is)\\s+${NAME}`, "u").exec(text);
  if (lookUp && !/\b(calendar|event|meeting)\b/i.test(text)) return lookUp[1]!;
  if (/\b(my|all|list|show)\b.*\bcontacts\b|\bcontacts\b.*\b(list|all)\b/i.test(text)) return null;
  return undefined;
}

/** The first person statement as a fact about the user ("I prefer mornings" → "prefer mornings"). */
function rememberIntent(text: string): DemoIntent | null {
  const m = new RegExp(`${POLITE}(?:remember|note|keep in mind|don't forget)\\s+(?:that\\s+)?(.+)$`, "is").exec(text.trim());
  if (!m) return null;
  const statement = m[1]!.trim().replace(/[.!]+$/, "");
  return statement ? { kind: "memory.remember", statement } : null;
}

// Requests outside calendar, contacts and memory that look like them ("book a flight" reads as
// scheduling): named, so the answer can say plainly what the demo cannot do.
const UNSUPPORTED: [RegExp, string][] = [
  [/\b(flights?|plane tickets?|airlines?)\b/, "book flights"],
  [/\b(hotels?|airbnb|accommodation)\b/, "book hotels"],
  [/\b(trains?|taxis?|cabs?|uber|lyft|car rental)\b/, "arrange travel"],
  [/\b(restaurant|table for)\b/, "reserve restaurants"],
  [/\b(order|buy|purchase|pay|checkout)\b/, "buy or pay for things"],
  [/\b(weather|forecast)\b/, "check the weather"],
  [/\b(send|write|draft) (an? )?(e-?mail|message|text|sms)\b/, "send messages"],
];

function unsupportedIntent(t: string): DemoIntent | null {
  const found = UNSUPPORTED.find(([pattern]) => pattern.test(t));
  return found ? { kind: "unsupported", what: found[1] } : null;
}

export function parseIntent(text: string, now: Date, timeZone: string): DemoIntent {
  const today = localToday(now, timeZone);
  const t = text.toLowerCase();
  const unsupported = unsupportedIntent(t);
  if (unsupported) return unsupported;
  const remember = rememberIntent(text);
  if (remember) return remember;
  if (/what (?:do|did) you (?:remember|know) about me|what have you (?:remembered|saved|noted)|(?:show|read|what'?s in) (?:your|my) memory|do you remember anything/.test(t)) {
    return { kind: "memory.recall" };
  }
  const schedule = scheduleIntent(text, today);
  if (schedule) return schedule;
  const query = contactQuery(text);
  if (query !== undefined) return { kind: "contacts.find", query };
  if (/\b(calendar|agenda|schedule|meetings?|events?|appointments?|busy|free|plans)\b|what'?s on\b/.test(t)) {
    if (/\bnext week\b/.test(t)) return { kind: "calendar.week", start: addDays(startOfWeek(today), 7), label: "next week" };
    if (/\b(this|the) week\b|\bweek\b/.test(t)) return { kind: "calendar.week", start: startOfWeek(today), label: "this week" };
    return { kind: "calendar.day", day: parseDay(text, today) ?? { date: today, label: "today" } };
  }
  if (/^\s*(hi|hello|hey|good (morning|afternoon|evening)|help|what can you do)\b/.test(t)) return { kind: "greeting" };
  return { kind: "unknown" };
}
