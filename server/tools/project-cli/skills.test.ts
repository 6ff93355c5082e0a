import { describe, expect, it } from "vitest";
import { PROJECT_CLI_ACTIONS } from "./actions";
import { createRouter } from "./router";
import { runSkillsCall, skillDocument, skillIndexCard, SKILL_NAMES, visibleSkills } from "./skills";
import { projectCliArgsSchema, projectCliToolDescription } from "./tool";
import { z } from "zod";

const ALL = [...SKILL_NAMES];
const data = (out: ReturnType<typeof runSkillsCall>) => (out.ok ? out.data : out.error) as Record<string, unknown>;

describe("skills: index cards and documents derived from the modules", () => {
  it("gives one short card per skill, naming its actions and what it is for", () => {
    expect(skillIndexCard("calendar")).toMatch(/^- calendar \(read, create, update, delete, share, accept_invite, reject_invite\): The user's calendar/);
    expect(skillIndexCard("memory")).toMatch(/^- memory \(read, update\): .*save lasting facts/);
    for (const name of SKILL_NAMES) expect(skillIndexCard(name).length).toBeLessThan(200);
  });

  it("documents every action with its fields, an example call the router accepts, and its pitfalls", () => {
    const router = createRouter();
    for (const name of SKILL_NAMES) {
      const doc = skillDocument(name);
      expect(doc.actions.map((a) => a.action)).toEqual(PROJECT_CLI_ACTIONS.filter((a) => a.module === name).map((a) => `${a.module}.${a.method}`));
      for (const action of doc.actions) {
        expect(action.does.length).toBeGreaterThan(0);
        const prepared = router.prepare({ ...action.example, allowedModules: ALL });
        expect("failed" in prepared ? prepared.failed : "accepted").toBe("accepted");
      }
    }
    const create = skillDocument("calendar", "create").actions[0]!;
    expect(create).toMatchObject({ action: "calendar.create", kind: "write", input: { title: expect.stringContaining("Event title"), "end_at?": expect.any(String) } });
    expect(create.pitfalls).toContain("Give exactly one of end_at or duration_minutes.");
    expect(skillDocument("calendar").rules.join(" ")).toMatch(/relative dates/);
  });

  it("keeps the tool thin: no action matrix in its description or schema", () => {
    const schema = JSON.stringify(z.toJSONSchema(projectCliArgsSchema));
    for (const a of PROJECT_CLI_ACTIONS) {
      expect(projectCliToolDescription).not.toContain(`${a.module}.${a.method}`);
      expect(schema).not.toContain(`${a.module}.${a.method}`);
    }
    expect(projectCliToolDescription).toContain('{"module":"skills","method":"read","input":{"skill":"<name>","action":"<action>"}}');
  });
});

describe("skills: the read-only skills methods", () => {
  it("lists and reads the visible skills only; a hidden skill reads as missing", () => {
    const visible = ["calendar", "memory"];
    expect(data(runSkillsCall({ method: "list", input: {}, visible }))).toEqual({
      skills: [
        { name: "calendar", card: expect.stringMatching(/^calendar \(read/) },
        { name: "memory", card: expect.stringMatching(/^memory \(read, update\)/) },
      ],
    });
    const doc = runSkillsCall({ method: "read", input: { skill: "calendar", action: "calendar.share" }, visible });
    expect(doc.ok && (doc.data as { actions: { action: string }[] }).actions.map((a) => a.action)).toEqual(["calendar.share"]);
    const hidden = runSkillsCall({ method: "read", input: { skill: "contacts" }, visible });
    const unknown = runSkillsCall({ method: "read", input: { skill: "weather" }, visible });
    expect(data(hidden)).toEqual({ code: "SKILL_NOT_FOUND", message: "No skill named contacts is available; read one of: calendar, memory", skills: visible });
    expect(data(unknown).code).toBe(data(hidden).code);
  });

  it("answers bad input with a structured error carrying input_schema", () => {
    expect(data(runSkillsCall({ method: "read", input: { name: "calendar" }, visible: ALL }))).toMatchObject({
      code: "INVALID_ACTION_INPUT",
      module: "skills",
      method: "read",
      input_schema: { skill: expect.stringContaining("string"), "action?": expect.any(String) },
    });
    expect(data(runSkillsCall({ method: "read", input: { skill: "calendar", action: "move" }, visible: ALL }))).toMatchObject({ code: "UNKNOWN_ACTION", available: expect.arrayContaining(["read", "share"]) });
    expect(data(runSkillsCall({ method: "write", input: {}, visible: ALL }))).toMatchObject({ code: "UNKNOWN_ACTION", available: ["skills.list", "skills.read"] });
  });

  it("shows what the allow-list permits less what was hidden", () => {
    expect(visibleSkills({ allowed: ALL, hidden: [] })).toEqual(ALL);
    expect(visibleSkills({ allowed: ALL, hidden: ["contacts", "nonsense"] })).toEqual(["calendar", "memory", "schedules"]);
    expect(visibleSkills({ allowed: ["memory", "calendar"], hidden: ["calendar"] })).toEqual(["memory"]);
  });
});

describe("skills: visibility never changes what the router allows", () => {
  // The router takes the run's allow-list and nothing else: there is no visibility input to it.
  const router = createRouter();
  const call = (module: string, allowedModules: string[]) => {
    const example = PROJECT_CLI_ACTIONS.find((a) => a.module === module)!;
    const prepared = router.prepare({ module, method: example.method, input: example.example, allowedModules });
    return "failed" in prepared ? (prepared.failed as { error: { code: string } }).error.code : "accepted";
  };

  it("accepts a hidden skill's action that is allowed, and refuses an allowed-out one however visible", () => {
    const hidden = ["contacts"];
    expect(visibleSkills({ allowed: ALL, hidden })).not.toContain("contacts");
    expect(call("contacts", ALL)).toBe("accepted");
    expect(visibleSkills({ allowed: ["calendar"], hidden: [] })).toEqual(["calendar"]);
    expect(call("memory", ["calendar"])).toBe("MODULE_NOT_ALLOWED");
  });
});
