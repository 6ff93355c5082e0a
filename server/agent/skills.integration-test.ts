import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { findAgentContext } from "@/server/agent/repository";
import { getPool } from "@/server/db";
import { createBinding } from "@/server/runner-host/bindings";
import { AGENT_RUNNER_ID } from "@/server/runs/runners/builtin-id";
import { PROJECT_CLI_ACTIONS } from "@/server/tools/project-cli/actions";
import { runProjectCli } from "@/server/tools/project-cli/tool";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { postRun, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";

// Skills over real HTTP: the production server asks the fake OpenAI-compatible model
// (test/fake-llm.ts, which records each request body), so the tests see what a model is sent
// (index cards, no action matrix), read a skill's document through project_cli, and prove
// that enabled_skills (tRPC, the chat's and the console's settings) hides without disallowing.

type Event = Record<string, unknown> & { type: string };
type ModelRequest = { messages: { role: string; content: string }[]; tools: { function: { name: string; description: string; parameters: unknown } }[] };
type User = Awaited<ReturnType<typeof createTestUser>>;

let user: User;
let admin: User;
let cookie = "";
let adminCookie = "";
beforeAll(async () => {
  [user, admin] = await Promise.all([createTestUser(), createTestUser({ role: "admin" })]);
  const sessions = await Promise.all([signInOverHttp(user.email, user.password), signInOverHttp(admin.email, admin.password)]);
  cookie = sessions[0]!;
  adminCookie = sessions[1]!;
});

const trpcPost = (path: string, input: unknown, session: string) =>
  fetch(`${baseUrl()}/api/trpc/${path}`, {
    method: "POST",
    headers: { cookie: session, "content-type": "application/json", origin: baseUrl() },
    body: JSON.stringify({ json: input }),
  });
const data = async <T,>(res: Response): Promise<T> => ((await res.json()) as { result: { data: { json: T } } }).result.data.json;

async function run(text: string) {
  const list = (await collectSse(await postRun(user.apiKey, runInput({}, text), { stream: true }))).map((f) => JSON.parse(f.data) as Event);
  const results = list.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => JSON.parse(e.content as string) as Record<string, unknown>);
  return { list, results };
}

/** The request bodies the model received for the run whose user text holds `mark`. */
async function modelRequests(mark: string): Promise<ModelRequest[]> {
  const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${mark}`)).json()) as { body: ModelRequest }[];
  return calls.map((c) => c.body);
}

const cardLine = (system: string, skill: string) => system.split("\n").find((line) => line.startsWith(`- ${skill} (`));

describe("skills and progressive disclosure over HTTP", () => {
  it("sends index cards and a thin tool, reads a document on demand, and hiding a skill never disallows it", async () => {
    // The chat's setting (tRPC with the browser session): every skill by default, unknown names refused.
    expect((await trpcGet("skills.get", undefined)).status).toBe(401);
    const initial = await data<{ enabledSkills: string[]; skills: { name: string }[] }>(await trpcGet("skills.get", undefined, { cookie }));
    expect(initial.enabledSkills).toEqual(["calendar", "contacts", "memory", "schedules"]);
    expect(initial.skills.map((s) => s.name)).toEqual(initial.enabledSkills);
    const refused = await trpcPost("skills.set", { enabledSkills: ["calendar", "weather"] }, cookie);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("no skill named weather");
    expect((await data<{ enabledSkills: string[] }>(await trpcPost("skills.set", { enabledSkills: ["calendar", "memory"] }, cookie))).enabledSkills).toEqual(["calendar", "memory"]);
    expect((await data<{ enabledSkills: string[] }>(await trpcGet("skills.get", undefined, { cookie }))).enabledSkills).toEqual(["calendar", "memory"]);

    const mark = `skills${randomUUID().slice(0, 8)}`;
    const { results } = await run(
      `${mark} [[tool:skills.read {"skill":"calendar","action":"read"}]] [[tool:contacts.read {"limit":1}]] [[tool:skills.read {"skill":"contacts"}]]`,
    );

    // What the model is sent: a card per visible skill in the system prompt, no action signatures anywhere.
    const [first] = await modelRequests(mark);
    const system = first!.messages.find((m) => m.role === "system")!.content;
    expect(cardLine(system, "calendar")).toMatch(/^- calendar \(read, create, update, delete, share, accept_invite, reject_invite\): /);
    expect(cardLine(system, "memory")).toBeDefined();
    expect(cardLine(system, "contacts")).toBeUndefined();
    const tool = first!.tools.find((t) => t.function.name === "project_cli")!.function;
    const shown = JSON.stringify([system, tool.description, tool.parameters]);
    for (const a of PROJECT_CLI_ACTIONS) expect(shown).not.toContain(`${a.module}.${a.method} {`);
    expect(shown).not.toContain("start_at");

    // The document, read through project_cli: fields, an example call, pitfalls.
    expect(results[0]).toMatchObject({
      module: "skills",
      method: "read",
      data: { skill: "calendar", actions: [{ action: "calendar.read", kind: "read", input: { mode: expect.stringContaining("enum(day|range|event)") }, example: { module: "calendar", method: "read" }, pitfalls: expect.any(Array) }] },
    });
    // Hidden is not disallowed: the hidden skill's action runs (the allow-list permits it), its document does not show.
    expect(results[1]).toMatchObject({ module: "contacts", method: "read", data: { items: expect.any(Array) } });
    expect(results[2]).toMatchObject({ status: "failure", error: { code: "SKILL_NOT_FOUND", skills: ["calendar", "memory"] } });
  });

  it("lets an admin hide skills per binding, on top of the user's choice", async () => {
    const other = await createTestUser();
    const binding = await createBinding({ runnerId: AGENT_RUNNER_ID, email: other.email });
    expect((await trpcPost("skills.setBinding", { bindingId: binding.id, enabledSkills: ["calendar"] }, cookie)).status).toBe(403);
    const missing = await trpcPost("skills.setBinding", { bindingId: randomUUID(), enabledSkills: [] }, adminCookie);
    expect(missing.status).toBe(404);
    expect((await data<{ enabledSkills: string[] }>(await trpcPost("skills.setBinding", { bindingId: binding.id, enabledSkills: ["calendar", "contacts"] }, adminCookie))).enabledSkills).toEqual(["calendar", "contacts"]);
    const listed = await data<{ bindings: { bindingId: string; enabledSkills: string[] }[] }>(await trpcGet("skills.bindings", undefined, { cookie: adminCookie }));
    expect(listed.bindings.find((b) => b.bindingId === binding.id)?.enabledSkills).toEqual(["calendar", "contacts"]);

    const otherCookie = (await signInOverHttp(other.email, other.password))!;
    expect((await trpcPost("skills.set", { enabledSkills: ["memory", "contacts"] }, otherCookie)).status).toBe(200);
    const mark = `binding${randomUUID().slice(0, 8)}`;
    const body = runInput({}, `${mark} [[tool:skills.list {}]] [[tool:memory.read {}]]`);
    const list = (await collectSse(await postRun(other.apiKey, body, { stream: true }))).map((f) => JSON.parse(f.data) as Event);
    const results = list.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => JSON.parse(e.content as string) as { data: unknown });

    // Visible: the binding's skills less the user's hidden ones; the hidden memory still runs.
    const system = (await modelRequests(mark))[0]!.messages.find((m) => m.role === "system")!.content;
    expect(["calendar", "contacts", "memory"].map((s) => cardLine(system, s) !== undefined)).toEqual([false, true, false]);
    expect(results[0]!.data).toEqual({ skills: [{ name: "contacts", card: expect.stringMatching(/^contacts \(read\): /) }] });
    expect(results[1]).toMatchObject({ module: "memory", method: "read", data: { facts: [] } });

    // A run executed without what its accept read (taken over elsewhere, started from the queue)
    // reads the same hidden skills with the rest of its starting context.
    const { rows } = await getPool().query<{ id: string }>(`select id from runs where user_id = $1 and run_id = $2`, [other.id, body.runId]);
    const context = await findAgentContext({ threadId: body.threadId, runId: rows[0]!.id, userId: other.id, historyLimit: 1, memoryLimit: 1 });
    expect([...new Set(context.hiddenSkills)].sort()).toEqual(["calendar", "memory", "schedules"]);
  });

  it("decides what runs by the allow-list alone, whatever is visible", async () => {
    const call = (allowedModules: string[], visibleSkills: string[]) =>
      runProjectCli({ userId: user.id, runId: randomUUID(), toolCallId: `call_${randomUUID()}`, args: { module: "memory", method: "read", input: {} }, allowedModules, visibleSkills });
    expect((await call(["calendar", "contacts", "memory"], [])).output).toMatchObject({ status: "success", result: { module: "memory" } });
    expect((await call(["calendar"], ["calendar", "contacts", "memory"])).output).toMatchObject({ status: "failure", error: { code: "MODULE_NOT_ALLOWED" } });
  });
});
