import { describe, expect, it } from "vitest";
import { parseUiSchema } from "@/server/ui-schema/schema";
import type { CalendarEventData } from "./modules/calendar/data";
import { postProcess } from "./post-process";
import type { CliOutput } from "./router";
import { toolAgentOutputSchema } from "@/server/protocols/runner/host-api";
import { compileToolUiSchema } from "./tool";

const event: CalendarEventData = {
  id: "6f1c2b1e-8d3a-4c55-9a51-0b7c1e2f3a4d",
  title: "Project sync",
  start_at: "2026-04-21T10:00:00+08:00",
  end_at: "2026-04-21T10:30:00+08:00",
  time_zone: "Asia/Shanghai",
  all_day: false,
  location: null,
  description: "Agenda in the doc",
  status: "confirmed",
  owner: { email: "alice@example.com", name: null },
  is_owner: true,
  invite: null,
  attendees: [
    { email: "bob@example.com", name: "Bob", status: "accepted" },
    { email: "carol@example.com", name: null, status: "rejected" },
  ],
};

const range = { start_at: "2026-04-21T00:00:00+08:00", end_at: "2026-04-22T00:00:00+08:00", time_zone: "Asia/Shanghai" };

// What each action's handler returns, and the ui_hints kind it must produce.
const SUCCESSES: [string, unknown, string][] = [
  ["calendar.read", { mode: "day", range, items: [event], count: 1, truncated: false, pending_invites: [] }, "calendar.events"],
  ["calendar.read", { mode: "range", range, items: [], count: 0, truncated: false, pending_invites: [] }, "calendar.events"],
  ["calendar.read", { mode: "event", event }, "calendar.events"],
  ["calendar.create", { event, invited: [{ email: "bob@example.com", name: "Bob" }], not_invited: [] }, "calendar.event"],
  ["calendar.update", { event, changed_fields: ["start_at", "end_at"] }, "calendar.event"],
  ["calendar.delete", { deleted: true, event }, "calendar.event"],
  ["calendar.share", { event, invite: { id: event.id, status: "pending", email: "dan@example.com", name: null }, already_invited: false }, "calendar.event"],
  ["calendar.accept_invite", { event: { ...event, is_owner: false, invite: { id: event.id, status: "accepted" } } }, "calendar.event"],
  ["calendar.reject_invite", { event: { ...event, is_owner: false, invite: { id: event.id, status: "rejected" } } }, "calendar.event"],
  [
    "contacts.read",
    { query: "ana", items: [{ id: event.id, name: "Ana Souza", email: "ana@example.com", phone: null, company: "Lumen", job_title: null, notes: null }], count: 1, total: 1 },
    "contacts.list",
  ],
  ["memory.update", { written: [{ key: "preferred_meeting_time", value: "mornings", updated_at: "2026-04-21T02:00:00.000Z" }], forgotten: [], not_found: [] }, "memory.facts"],
];

const success = (name: string, data: unknown): CliOutput => {
  const [module, method] = name.split(".") as [string, string];
  return { ok: true, module, method, data };
};

describe("the tool post-processor", () => {
  it.each(SUCCESSES)("gives %s ui_hints that compile to a valid UiSchema", (name, data, kind) => {
    const args = { module: name.split(".")[0], method: name.split(".")[1], input: {} };
    const { output, toolResponseText } = postProcess({ toolCallId: "call_1", args, outcome: success(name, data) });
    expect(toolAgentOutputSchema.parse(output)).toEqual(output);
    expect(output).toMatchObject({ tool_name: "project_cli", tool_call_id: "call_1", tool_call_args: args, status: "success", error: null });
    expect(output.result).toEqual({ module: args.module, method: args.method, data });
    expect(JSON.parse(toolResponseText)).toEqual(output.result);
    expect(output.ui_hints?.kind).toBe(kind);
    const schema = compileToolUiSchema(output);
    expect(schema).not.toBeNull();
    expect(parseUiSchema(schema).success).toBe(true);
    expect(schema!.meta).toEqual({ toolId: "call_1" });
  });

  it("shows who the event was shared with and what changed", () => {
    const [, shareData] = SUCCESSES.find(([n]) => n === "calendar.share")!;
    const shared = postProcess({ toolCallId: "c", args: {}, outcome: success("calendar.share", shareData) }).output;
    expect(shared.ui_hints).toMatchObject({ kind: "calendar.event", action: "shared", sharedWith: [{ email: "dan@example.com" }] });
    const [, updateData] = SUCCESSES.find(([n]) => n === "calendar.update")!;
    const updated = postProcess({ toolCallId: "c", args: {}, outcome: success("calendar.update", updateData) }).output;
    expect(updated.ui_hints).toMatchObject({ action: "updated", changedFields: ["start_at", "end_at"] });
    expect(updated.ui_hints).toMatchObject({
      event: { attendees: [{ email: "bob@example.com", response: "accepted" }, { email: "carol@example.com", response: "declined" }] },
    });
  });

  it("marks a create whose attendees could not all be invited as partial", () => {
    const data = { event, invited: [], not_invited: [{ email: "stranger@example.com", reason: "not_a_dispatch_user" }] };
    const { output, toolResponseText } = postProcess({ toolCallId: "c", args: {}, outcome: success("calendar.create", data) });
    expect(output.status).toBe("partial");
    expect(output.ui_hints?.kind).toBe("calendar.event");
    expect(toolResponseText).toContain("stranger@example.com");
  });

  it("gives memory.read a card too: what the agent remembers is the answer, not raw JSON", () => {
    const facts = [{ key: "prefers_mornings", value: "Prefers mornings", updated_at: "2026-04-21T02:00:00.000Z" }];
    const { output } = postProcess({ toolCallId: "c", args: {}, outcome: success("memory.read", { facts, count: 1 }) });
    expect(output).toMatchObject({ status: "success", ui_hints: { kind: "memory.facts", action: "read" } });
    const card = JSON.stringify(compileToolUiSchema(output));
    // The fact is said once: its key would only repeat it as a label.
    expect(card.match(/Prefers mornings/g)).toHaveLength(1);
  });

  it("gives no card, rather than a wrong one, for data that does not match the action", () => {
    const { output } = postProcess({ toolCallId: "c", args: {}, outcome: success("calendar.read", { items: "nope" }) });
    expect(output).toMatchObject({ status: "success", ui_hints: null });
  });

  it("turns failures into a structured error, an error card, and the failure JSON for the model", () => {
    const error = { code: "EVENT_NOT_FOUND", message: "No event with id x" };
    const { output, toolResponseText } = postProcess({ toolCallId: "c", args: {}, outcome: { ok: false, module: "calendar", method: "update", error } });
    expect(output).toMatchObject({ status: "failure", result: null, error, ui_hints: { kind: "error", module: "calendar", method: "update", code: "EVENT_NOT_FOUND" } });
    expect(JSON.parse(toolResponseText)).toEqual({ status: "failure", error });
    expect(parseUiSchema(compileToolUiSchema(output)).success).toBe(true);
  });

  it("leaves input mistakes and unknown actions to the model, without a card", () => {
    const invalid = { code: "INVALID_ACTION_INPUT", message: "calendar.read input does not match method schema", input_schema: {} };
    expect(postProcess({ toolCallId: "c", args: {}, outcome: { ok: false, module: "calendar", method: "read", error: invalid } }).output.ui_hints).toBeNull();
    const unknown = { code: "UNKNOWN_ACTION", message: "project_cli has no action shell.exec" };
    expect(postProcess({ toolCallId: "c", args: {}, outcome: { ok: false, module: "shell", method: "exec", error: unknown } }).output.ui_hints).toBeNull();
  });

  it("compiles the stored output to the same bytes as the fresh one", () => {
    for (const [name, data] of SUCCESSES) {
      const { output } = postProcess({ toolCallId: `call_${name}`, args: {}, outcome: success(name, data) });
      const stored = JSON.parse(JSON.stringify(output)) as unknown;
      expect(JSON.stringify(compileToolUiSchema(stored))).toBe(JSON.stringify(compileToolUiSchema(output)));
    }
  });

  it("survives stored outputs that no longer parse", () => {
    for (const stored of [undefined, null, "text", {}, { ui_hints: { kind: "retired.card" } }, { ui_hints: { kind: "error" }, tool_call_id: 7 }]) {
      expect(compileToolUiSchema(stored)).toBeNull();
    }
  });
});
