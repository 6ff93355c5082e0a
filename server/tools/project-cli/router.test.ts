import type pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { PROJECT_CLI_ACTIONS, PROJECT_CLI_MODULES, type ActionDefinition } from "./actions";
import { ToolError } from "./errors";
import { createRouter, type CliOutput } from "./router";

const EVENT = "6f1c2b1e-8d3a-4c55-9a51-0b7c1e2f3a4d";
const ctx = { userId: "3b0a6a52-9a3e-4f43-8f58-1d8e0a9b7c11", db: {} as pg.ClientBase, timeZone: "Asia/Shanghai" };
const ALL = PROJECT_CLI_MODULES;

// One valid input per whitelisted action: each method's own example.
const VALID: Record<string, unknown> = Object.fromEntries(PROJECT_CLI_ACTIONS.map((a) => [`${a.module}.${a.method}`, a.example]));

function spiedRouter() {
  const calls: { action: string; input: unknown }[] = [];
  const actions: ActionDefinition[] = PROJECT_CLI_ACTIONS.map((a) => ({
    ...a,
    handler: vi.fn(async (_ctx, input) => {
      calls.push({ action: `${a.module}.${a.method}`, input });
      return { handled: `${a.module}.${a.method}` };
    }),
  }));
  return { router: createRouter(actions), calls };
}

async function dispatch(module: string, method: string, input: unknown, allowedModules = ALL) {
  const { router, calls } = spiedRouter();
  const output = await router.dispatch({ ctx, module, method, input, allowedModules });
  return { output, calls };
}

function failure(output: CliOutput) {
  if (output.ok) throw new Error(`expected a failure, got ${JSON.stringify(output)}`);
  return output.error as { code: string; message: string; issues?: { path: string; message: string }[]; [k: string]: unknown };
}

describe("the project_cli router", () => {
  it("whitelists the registered modules' methods", () => {
    expect(Object.keys(VALID)).toEqual(
      expect.arrayContaining([
        "calendar.read",
        "calendar.create",
        "calendar.update",
        "calendar.delete",
        "calendar.share",
        "calendar.accept_invite",
        "calendar.reject_invite",
        "contacts.read",
        "memory.read",
        "memory.update",
      ]),
    );
  });

  it.each(Object.entries(VALID))("routes %s to its own handler with the parsed input", async (name, input) => {
    const [module, method] = name.split(".") as [string, string];
    const { output, calls } = await dispatch(module, method, input);
    expect(output).toEqual({ ok: true, module, method, data: { handled: name } });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.action).toBe(name);
  });

  it("hands handlers normalised input (emails lower-cased)", async () => {
    const { calls } = await dispatch("calendar", "create", VALID["calendar.create"]);
    expect(calls[0]!.input).toMatchObject({ attendees: ["bob@example.com"] });
  });

  it.each([
    ["calendar", "drop"],
    ["shell", "exec"],
    ["calendar", "constructor"],
    ["__proto__", "read"],
    ["calendar", "read; rm -rf /"],
    ["Calendar", "read"],
  ])("refuses the unknown action %s.%s without running anything", async (module, method) => {
    const { output, calls } = await dispatch(module, method, {});
    const error = failure(output);
    expect(error.code).toBe("UNKNOWN_ACTION");
    expect(error.available).toEqual(Object.keys(VALID));
    expect(calls).toHaveLength(0);
  });

  it("refuses a whitelisted action whose module the run does not allow", async () => {
    const { output, calls } = await dispatch("calendar", "read", VALID["calendar.read"], ["contacts"]);
    expect(failure(output)).toMatchObject({ code: "MODULE_NOT_ALLOWED", allowed_modules: ["contacts"] });
    expect(calls).toHaveLength(0);
    const unknown = failure((await dispatch("calendar", "nope", {}, ["contacts"])).output);
    expect(unknown.available).toEqual(["contacts.read"]);
  });

  it.each(Object.entries(VALID))("rejects %s input with an unknown field, before the handler", async (name, input) => {
    const [module, method] = name.split(".") as [string, string];
    const { output, calls } = await dispatch(module, method, { ...(input as object), owner_id: "someone-else" });
    const error = failure(output);
    expect(error).toMatchObject({ code: "INVALID_ACTION_INPUT", message: `${name} input does not match method schema`, module, method });
    expect(error.input_schema).toBeTypeOf("object");
    expect(JSON.stringify(error.issues)).toContain("owner_id");
    expect(calls).toHaveLength(0);
  });

  it("describes calendar.read's expected input the way the protocol shows it", async () => {
    const error = failure((await dispatch("calendar", "read", { mode: "week" })).output);
    expect(error.input_schema).toMatchObject({
      mode: "string enum(day|range|event)",
      "mode=day": { date: expect.stringContaining("date YYYY-MM-DD"), "time_zone?": expect.any(String) },
      "mode=range": { start_at: expect.stringContaining("datetime with offset"), end_at: expect.any(String) },
      "mode=event": { event_id: expect.stringContaining("id") },
    });
  });

  it.each([
    ["a naive range", "calendar", "read", { mode: "range", start_at: "2026-04-21T00:00:00", end_at: "2026-04-22T00:00:00" }, "start_at"],
    ["a naive start", "calendar", "create", { title: "x", start_at: "2026-04-21T10:00:00", duration_minutes: 30 }, "start_at"],
    ["a date-only start", "calendar", "create", { title: "x", start_at: "2026-04-21", duration_minutes: 30 }, "start_at"],
    ["a naive update", "calendar", "update", { event_id: EVENT, end_at: "2026-04-21 12:00" }, "end_at"],
    ["an impossible date", "calendar", "read", { mode: "day", date: "2026-02-30" }, "date"],
    ["a datetime as a day", "calendar", "read", { mode: "day", date: "2026-04-21T00:00:00Z" }, "date"],
    ["an unknown zone", "calendar", "read", { mode: "day", date: "2026-04-21", time_zone: "Mars/Olympus" }, "time_zone"],
    ["an end before the start", "calendar", "read", { mode: "range", start_at: "2026-04-22T00:00:00Z", end_at: "2026-04-21T00:00:00Z" }, "end_at"],
    ["a range over 92 days", "calendar", "read", { mode: "range", start_at: "2026-01-01T00:00:00Z", end_at: "2026-06-01T00:00:00Z" }, "end_at"],
    ["both end and duration", "calendar", "create", { title: "x", start_at: "2026-04-21T10:00:00Z", end_at: "2026-04-21T11:00:00Z", duration_minutes: 60 }, "end_at"],
    ["neither end nor duration", "calendar", "create", { title: "x", start_at: "2026-04-21T10:00:00Z" }, "end_at"],
    ["a wrong mode", "calendar", "read", { mode: "week", date: "2026-04-21" }, "mode"],
    ["no mode", "calendar", "read", { date: "2026-04-21" }, "mode"],
    ["a mode with another mode's fields", "calendar", "read", { mode: "day", start_at: "2026-04-21T00:00:00Z" }, ""],
    ["an update that changes nothing", "calendar", "update", { event_id: EVENT }, ""],
    ["an id that is not an id", "calendar", "delete", { event_id: "evt_123" }, "event_id"],
    ["both invite and event id", "calendar", "accept_invite", { invite_id: EVENT, event_id: EVENT }, ""],
    ["a bad email", "calendar", "share", { event_id: EVENT, email: "bob" }, "email"],
    ["a limit too high", "contacts", "read", { limit: 1000 }, "limit"],
    ["a key with spaces", "memory", "update", { key: "favourite food", value: "pho" }, "key"],
    ["a number as value", "memory", "update", { key: "age", value: 41 }, "value"],
    ["a bad key in a batch", "memory", "update", { facts: [{ key: "ok_key", value: "x" }, { key: "Bad-Key", value: "y" }] }, "facts.1.key"],
    ["an input that is not an object", "memory", "read", "everything", ""],
  ])("rejects %s as INVALID_ACTION_INPUT", async (_what, module, method, input, path) => {
    const { output, calls } = await dispatch(module, method, input);
    const error = failure(output);
    expect(error.code).toBe("INVALID_ACTION_INPUT");
    expect(error.issues!.length).toBeGreaterThan(0);
    if (path) expect(error.issues!.map((i) => i.path)).toContain(path);
    expect(calls).toHaveLength(0);
  });

  it("returns a handler's ToolError as structured data and lets real faults through", async () => {
    const actions = PROJECT_CLI_ACTIONS.map((a) => ({
      ...a,
      handler: async () => {
        if (a.module === "memory") throw new ToolError("EVENT_NOT_FOUND", "No event with id x", { details: { id: "x" } });
        throw new Error("database exploded");
      },
    }));
    const router = createRouter(actions);
    expect(await router.dispatch({ ctx, module: "memory", method: "read", input: {}, allowedModules: ALL })).toEqual({
      ok: false,
      module: "memory",
      method: "read",
      error: { code: "EVENT_NOT_FOUND", message: "No event with id x", id: "x" },
    });
    await expect(router.dispatch({ ctx, module: "contacts", method: "read", input: {}, allowedModules: ALL })).rejects.toThrow("database exploded");
  });
});
