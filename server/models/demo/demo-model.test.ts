import { isStepCount, jsonSchema, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { PROJECT_CLI_ACTIONS } from "../../tools/project-cli/actions";
import { parseDay, parseDuration, parseTime } from "./demo-intents";
import { createDemoModel } from "./demo-model";
import { factFromStatement, planDemoTurn, type DemoAction, type DemoExchange, type ProjectCliArgs } from "./demo-planner";

// Thursday 1 January 2026, 22:00 in New York, already Friday in UTC: "tomorrow" must follow the user's zone.
const NOW = new Date("2026-01-02T03:00:00Z");
const TZ = "America/New_York";

const plan = (userText: string, turn: DemoExchange[] = []) => planDemoTurn({ userText, turn, now: NOW, timeZone: TZ });
const ok = (module: string, method: string, data: unknown) => JSON.stringify({ module, method, data });
const fail = (code: string, message: string) => JSON.stringify({ status: "failure", error: { code, message } });

/** The planned call, checked against project_cli's own strict schema for that method. */
function toolCall(action: DemoAction): ProjectCliArgs {
  if (action.type !== "tool") throw new Error(`expected a tool call, got text: ${action.text}`);
  const spec = PROJECT_CLI_ACTIONS.find((a) => a.module === action.args.module && a.method === action.args.method);
  expect(spec, `${action.args.module}.${action.args.method} is whitelisted`).toBeDefined();
  const parsed = spec!.input.safeParse(action.args.input);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return action.args;
}

function text(action: DemoAction): string {
  if (action.type !== "text") throw new Error(`expected text, got a call to ${action.args.module}.${action.args.method}`);
  return action.text;
}

const ANA = { id: "c1", name: "Ana Souza", email: "ana.souza@example.com", phone: "+55 11 5555-0101", company: "Atlas", job_title: null, notes: null };
// The contacts search matches substrings, so "Ana" also finds Diana.
const DIANA = { id: "c2", name: "Diana Okafor", email: "diana@example.com", phone: null, company: null, job_title: null, notes: null };

describe("the demo model's phrasings", () => {
  it("what's on my calendar tomorrow: the next day in the user's zone", () => {
    expect(toolCall(plan("What's on my calendar tomorrow?"))).toEqual({ module: "calendar", method: "read", input: { mode: "day", date: "2026-01-02", time_zone: TZ } });
    const reply = text(
      plan("What's on my calendar tomorrow?", [
        {
          args: null,
          output: ok("calendar", "read", { items: [{ title: "Project sync", start_at: "2026-01-02T15:00:00Z", end_at: "2026-01-02T15:30:00Z", all_day: false }] }),
        },
      ]),
    );
    expect(reply).toBe("Tomorrow (Friday, January 2) you have 1 event:\n- 10:00–10:30 Project sync");
    expect(text(plan("what's on my calendar tomorrow", [{ args: null, output: ok("calendar", "read", { items: [] }) }]))).toBe(
      "Your calendar is clear tomorrow (Friday, January 2): no events.",
    );
  });

  it("what's on my calendar this week: Monday to Monday in the user's zone", () => {
    expect(toolCall(plan("what's on my calendar this week"))).toEqual({
      module: "calendar",
      method: "read",
      input: { mode: "range", start_at: "2025-12-29T00:00:00-05:00", end_at: "2026-01-05T00:00:00-05:00" },
    });
    const events = [
      { title: "Standup", start_at: "2025-12-29T14:00:00Z", end_at: "2025-12-29T14:15:00Z" },
      { title: "Holiday", start_at: "2026-01-01T05:00:00Z", end_at: "2026-01-02T05:00:00Z", all_day: true },
    ];
    expect(text(plan("what's on my calendar this week", [{ args: null, output: ok("calendar", "read", { items: events }) }]))).toBe(
      "This week you have 2 events:\n\n| Day | Time | Event |\n| --- | --- | --- |\n| Mon, Dec 29 | 09:00–09:15 | Standup |\n| Thu, Jan 1 | All day | Holiday |",
    );
  });

  it("schedule a call with Ana on Friday at 10 for 30 minutes: find her, then create the event inviting her", () => {
    const ask = "Schedule a call with Ana on Friday at 10 for 30 minutes";
    const lookup = toolCall(plan(ask));
    expect(lookup).toEqual({ module: "contacts", method: "read", input: { query: "Ana" } });
    const found: DemoExchange = { args: lookup, output: ok("contacts", "read", { query: "Ana", items: [DIANA, ANA], count: 2, total: 2 }) };
    const create = toolCall(plan(ask, [found]));
    expect(create).toEqual({
      module: "calendar",
      method: "create",
      input: { title: "Call with Ana Souza", start_at: "2026-01-02T10:00:00-05:00", duration_minutes: 30, time_zone: TZ, attendees: ["ana.souza@example.com"] },
    });
    const invited = text(plan(ask, [found, { args: create, output: ok("calendar", "create", { event: {}, invited: [{ email: ANA.email, name: "Ana Souza" }], not_invited: [] }) }]));
    expect(invited).toBe("Done: “Call with Ana Souza” is on your calendar for Friday, January 2 at 10:00 (30 minutes). I invited Ana Souza.");
    const outsider = text(
      plan(ask, [found, { args: create, output: ok("calendar", "create", { event: {}, invited: [], not_invited: [{ email: ANA.email, reason: "not a Dispatch user" }] }) }]),
    );
    expect(outsider).toContain("ana.souza@example.com isn't a Dispatch user, so I only put the name in the title.");
  });

  it("schedules with the name in the title alone when the person is not a contact", () => {
    const ask = "please book a meeting with Bruno tomorrow at 3pm for an hour";
    const none: DemoExchange = { args: { module: "contacts", method: "read", input: { query: "Bruno" } }, output: ok("contacts", "read", { items: [] }) };
    expect(toolCall(plan(ask, [none]))).toEqual({
      module: "calendar",
      method: "create",
      input: { title: "Meeting with Bruno", start_at: "2026-01-02T15:00:00-05:00", duration_minutes: 60, time_zone: TZ },
    });
  });

  it("asks for the missing time instead of guessing one", () => {
    expect(text(plan("schedule a call with Ana on Friday"))).toContain("I need a time");
  });

  it("remember that I prefer mornings: a memory fact in project_cli's key format", () => {
    expect(toolCall(plan("Remember that I prefer mornings."))).toEqual({
      module: "memory",
      method: "update",
      input: { facts: [{ key: "prefers_mornings", value: "Prefers mornings" }] },
    });
    expect(text(plan("Remember that I prefer mornings.", [{ args: null, output: ok("memory", "update", { written: [], forgotten: [], not_found: [] }) }]))).toBe(
      "Got it. I'll remember that you prefer mornings.",
    );
    expect(factFromStatement("my favourite colour is blue")).toEqual({ key: "favourite_colour", value: "blue" });
    expect(factFromStatement("I'm vegetarian")).toEqual({ key: "is_vegetarian", value: "Is vegetarian" });
    expect(factFromStatement("I usually work from home")).toEqual({ key: "usually_works_from_home", value: "Usually works from home" });
  });

  it("what do you remember about me: reads memory and lists it", () => {
    expect(toolCall(plan("What do you remember about me?"))).toEqual({ module: "memory", method: "read", input: {} });
    const facts = { facts: [{ key: "prefers_mornings", value: "Prefers mornings", updated_at: "2026-01-01T00:00:00Z" }], count: 1 };
    expect(text(plan("What do you remember about me?", [{ args: null, output: ok("memory", "read", facts) }]))).toBe("Here is what I remember about you:\n- Prefers mornings");
    expect(text(plan("what do you remember about me", [{ args: null, output: ok("memory", "read", { facts: [], count: 0 }) }]))).toContain("I don't remember anything about you yet");
  });

  it("find Ana's email: looks her up among the contacts", () => {
    expect(toolCall(plan("find Ana's email"))).toEqual({ module: "contacts", method: "read", input: { query: "Ana" } });
    // As the help text and the suggestion chip write it: the command word is not part of the name.
    expect(toolCall(plan("Find Ana's email"))).toEqual({ module: "contacts", method: "read", input: { query: "Ana" } });
    expect(toolCall(plan("What is Ana Souza's phone number?"))).toEqual({ module: "contacts", method: "read", input: { query: "Ana Souza" } });
    expect(toolCall(plan("Find Sinéad O'Brien's email"))).toEqual({ module: "contacts", method: "read", input: { query: "Sinéad O'Brien" } });
    expect(text(plan("find Ana's email", [{ args: null, output: ok("contacts", "read", { items: [DIANA, ANA] }) }]))).toBe("Ana Souza's email is ana.souza@example.com.");
    expect(text(plan("find Ana's email", [{ args: null, output: ok("contacts", "read", { items: [] }) }]))).toBe("I couldn't find a contact matching “Ana”.");
    expect(toolCall(plan("What is the email of Ana Souza?"))).toEqual({ module: "contacts", method: "read", input: { query: "Ana Souza" } });
    expect(toolCall(plan("show my contacts"))).toEqual({ module: "contacts", method: "read", input: {} });
  });

  it("reports a tool failure in plain words", () => {
    expect(text(plan("what's on my calendar today", [{ args: null, output: fail("TOOL_UNAVAILABLE", "project_cli is not available on this server") }]))).toBe(
      "I couldn't complete that: project_cli is not available on this server.",
    );
  });

  it("says plainly what it can do, that it is an offline demo, and how to connect a real model", () => {
    const reply = text(plan("Write me a poem about the sea"));
    expect(reply).toContain("offline demo model");
    expect(reply).toContain("What's on my calendar tomorrow?");
    expect(reply).toContain("LLM_BASE_URL, LLM_API_KEY and LLM_MODEL");
    expect(reply).toContain("OPENAI_API_KEY");
    expect(text(plan("hello"))).toMatch(/^Hi! I'm Dispatch's offline demo model/);
  });

  it("to someone who wrote in Chinese, says in Chinese that it reads only English requests, with the examples to copy", () => {
    for (const asked of ["明天我有什么安排？", "你好"]) {
      const reply = text(plan(asked));
      expect(reply).toMatch(/^我是 Dispatch 的离线演示模型，只能理解几种固定的英文请求/);
      expect(reply).toContain("\"What's on my calendar tomorrow?\"");
      expect(reply).toContain("LLM_BASE_URL");
    }
  });

  it("answers what it cannot do in one short honest sentence, not as a scheduling request", () => {
    expect(text(plan("Book me a flight to Lisbon on Friday"))).toBe("I can't book flights: this offline demo only works with your calendar, contacts and memory.");
    expect(text(plan("Book a table for two at 8"))).toBe("I can't reserve restaurants: this offline demo only works with your calendar, contacts and memory.");
    expect(text(plan("What's the weather tomorrow?"))).toMatch(/^I can't check the weather: /);
    expect(toolCall(plan("Book a meeting with Ana on Friday at 10"))).toEqual({ module: "contacts", method: "read", input: { query: "Ana" } });
  });

  it("says it got an attached image and that it cannot see it, instead of the help text", () => {
    const one = text(planDemoTurn({ userText: "", images: 1, turn: [], now: NOW, timeZone: TZ }));
    expect(one).toMatch(/^I got your image, but this offline demo model cannot see pictures/);
    expect(text(planDemoTurn({ userText: "What is this?", images: 2, turn: [], now: NOW, timeZone: TZ }))).toMatch(/^I got your 2 images/);
    // A request the demo understands is answered as usual, image or not.
    expect(toolCall(planDemoTurn({ userText: "What's on my calendar tomorrow?", images: 1, turn: [], now: NOW, timeZone: TZ })).module).toBe("calendar");
  });
});

describe("the demo model's dates and times", () => {
  const today = { year: 2026, month: 1, day: 1 }; // a Thursday

  it("reads days relative to today", () => {
    expect(parseDay("on Friday", today)?.date).toEqual({ year: 2026, month: 1, day: 2 });
    expect(parseDay("thursday", today)?.date).toEqual(today);
    expect(parseDay("next Thursday", today)?.date).toEqual({ year: 2026, month: 1, day: 8 });
    expect(parseDay("on 5 March", today)?.date).toEqual({ year: 2026, month: 3, day: 5 });
    expect(parseDay("Dec 31st", { year: 2026, month: 12, day: 31 })?.date).toEqual({ year: 2026, month: 12, day: 31 });
    expect(parseDay("on Nov 3", { year: 2026, month: 12, day: 1 })?.date).toEqual({ year: 2027, month: 11, day: 3 });
    expect(parseDay("the day after tomorrow", today)?.date).toEqual({ year: 2026, month: 1, day: 3 });
    expect(parseDay("sometime", today)).toBeNull();
  });

  it("reads times and durations", () => {
    expect(parseTime("at 10")).toEqual({ hour: 10, minute: 0 });
    expect(parseTime("at 2")).toEqual({ hour: 14, minute: 0 });
    expect(parseTime("at 9:45am")).toEqual({ hour: 9, minute: 45 });
    expect(parseTime("12am")).toEqual({ hour: 0, minute: 0 });
    expect(parseTime("around noon")).toEqual({ hour: 12, minute: 0 });
    expect(parseTime("at 16:30 for 2 hours")).toEqual({ hour: 16, minute: 30 });
    expect(parseTime("for 30 minutes")).toBeNull();
    expect(parseDuration("for half an hour")).toBe(30);
    expect(parseDuration("for 2 hours")).toBe(120);
    expect(parseDuration("for an hour")).toBe(60);
    expect(parseDuration("for 45 min")).toBe(45);
    expect(parseDuration("with Noah")).toBeNull();
  });
});

describe("the demo model as an AI SDK model", () => {
  const projectCli = (answer: (args: ProjectCliArgs) => string) =>
    tool({ description: "project_cli", inputSchema: jsonSchema<ProjectCliArgs>({ type: "object" }), execute: async (args) => answer(args), toModelOutput: ({ output }) => ({ type: "text", value: output as string }) });

  it("streams its answer in small chunks, paced by its delay", async () => {
    const model = createDemoModel({ now: () => NOW, timeZone: TZ, delayMs: 5 });
    const started = Date.now();
    const deltas: string[] = [];
    for await (const part of streamText({ model, prompt: "hello" }).stream) if (part.type === "text-delta") deltas.push(part.text);
    expect(deltas.length).toBeGreaterThan(20);
    expect(deltas.every((d) => d.length < 40)).toBe(true);
    expect(deltas.join("")).toMatch(/^Hi! I'm Dispatch's offline demo model/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * deltas.length - 20);
  });

  it("drives a full tool loop: call project_cli, read the result, summarise", async () => {
    const model = createDemoModel({ now: () => NOW, timeZone: TZ, delayMs: 0 });
    const calls: ProjectCliArgs[] = [];
    const result = streamText({
      model,
      prompt: "find Ana's email",
      tools: { project_cli: projectCli((args) => (calls.push(args), ok("contacts", "read", { items: [ANA] }))) },
      stopWhen: isStepCount(7),
    });
    expect(await result.text).toBe("Ana Souza's email is ana.souza@example.com.");
    expect(calls).toEqual([{ module: "contacts", method: "read", input: { query: "Ana" } }]);
    expect((await result.totalUsage).outputTokens).toBeGreaterThan(0);
  });

  it("stops streaming when aborted", async () => {
    const model = createDemoModel({ now: () => NOW, timeZone: TZ, delayMs: 50 });
    const controller = new AbortController();
    let deltas = 0;
    const result = streamText({ model, prompt: "hello", abortSignal: controller.signal, onError: () => {} });
    for await (const part of result.stream) {
      if (part.type === "text-delta" && ++deltas === 2) controller.abort();
    }
    expect(deltas).toBe(2);
  });
});
