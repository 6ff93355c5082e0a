import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runProjectCli } from "@/server/tools/project-cli/tool";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { startEverythingServer, startTicketsServer, type EverythingServer, type TicketsServer } from "@/test/mcp-servers";
import { postRun, runInput } from "@/test/runs";
import { inputText } from "@/examples/runners/echo";
import { startRunners } from "@/examples/runners/start";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, runCompleted } from "@/sdk/runner/results";
import { decide } from "@/server/approvals/test-support";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { startExtraServer } from "@/test/extra-server";
import { collectSse } from "@/test/sse";
import { waitFor } from "@/test/wait";

// MCP servers as tools of the built-in agent, over real HTTP against the production server and the
// scripted fake model (test/fake-llm.ts): server-everything from npm and the tickets server
// (test/mcp-servers.ts), both over Streamable HTTP on loopback, which RUNNER_ALLOWED_HOSTS allows.

type Event = Record<string, unknown> & { type: string };
type Finished = { outcome?: { type: string; interrupts?: { id: string; message: string }[] } };
type User = Awaited<ReturnType<typeof createTestUser>>;

// The tickets server's bearer token: it must never show anywhere but the tickets server.
const CANARY = `canary-${randomUUID()}`;

let everything: EverythingServer;
let tickets: TicketsServer;
let admin: User;
let user: User;
let adminCookie = "";
let userCookie = "";

const trpcPost = (path: string, input: unknown, cookie: string) =>
  fetch(`${baseUrl()}/api/trpc/${path}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: baseUrl() },
    body: JSON.stringify({ json: input }),
  });
const data = async <T,>(res: Response): Promise<T> => ((await res.json()) as { result: { data: { json: T } } }).result.data.json;

async function run(who: User, text: string) {
  const body = runInput({}, text);
  const list = (await collectSse(await postRun(who.apiKey, body, { stream: true }))).map((f) => JSON.parse(f.data) as Event);
  const results = list.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => JSON.parse(e.content as string) as Record<string, unknown>);
  const finished = list.find((e) => e.type === "RUN_FINISHED") as Finished | undefined;
  return { body, list, results, finished };
}

const systemPrompt = async (mark: string) => {
  const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${mark}`)).json()) as { body: { messages: { role: string; content: string }[] } }[];
  return calls[0]!.body.messages.find((m) => m.role === "system")!.content;
};

beforeAll(async () => {
  [everything, tickets, admin, user] = await Promise.all([startEverythingServer(), startTicketsServer({ token: CANARY }), createTestUser({ role: "admin" }), createTestUser()]);
  const sessions = await Promise.all([signInOverHttp(admin.email, admin.password), signInOverHttp(user.email, user.password)]);
  adminCookie = sessions[0]!;
  userCookie = sessions[1]!;
}, 60_000);

afterAll(async () => {
  await Promise.all([everything?.stop(), tickets?.stop()]);
});

describe("MCP servers as project_cli modules", () => {
  it("registers a server for admins only, checks its URL, lists its tools and never shows its token again", async () => {
    const tickets1 = { name: "tickets", url: tickets.url, bearerToken: CANARY };
    expect((await trpcPost("mcpServers.register", tickets1, userCookie)).status).toBe(403);
    // A private address is refused before anything is sent, as a runner's is.
    const privateUrl = await trpcPost("mcpServers.register", { name: "inside", url: "http://10.1.2.3:8080/mcp" }, adminCookie);
    expect(privateUrl.status).toBe(400);
    expect(await privateUrl.text()).toContain("RUNNER_ALLOWED_HOSTS");
    // The wrong token: tools/list fails, nothing is registered.
    expect((await trpcPost("mcpServers.register", { ...tickets1, bearerToken: "wrong" }, adminCookie)).status).toBe(400);
    expect((await trpcPost("mcpServers.register", { ...tickets1, name: "calendar" }, adminCookie)).status).toBe(409);

    const registered = await data<{ name: string; hasAuth: boolean; tools: { name: string; kind: string; annotations?: object }[] }>(await trpcPost("mcpServers.register", tickets1, adminCookie));
    expect(registered.hasAuth).toBe(true);
    expect(registered.tools.map((t) => [t.name, t.kind])).toEqual([["find_ticket", "read"], ["create_ticket", "write"], ["export_tickets", "read"], ["delete_ticket", "write"]]);
    expect(registered.tools[3]!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    await data(await trpcPost("mcpServers.register", { name: "everything", url: everything.url }, adminCookie));
    expect((await trpcPost("mcpServers.register", tickets1, adminCookie)).status).toBe(409);

    const listed = await (await trpcGet("mcpServers.list", undefined, { cookie: adminCookie })).text();
    expect(listed).toContain("get-sum");
    expect(listed).not.toContain(CANARY);

    for (const name of ["everything", "tickets"]) await data(await trpcPost("mcpServers.grant", { name, email: user.email }, adminCookie));
  });

  it("lets the agent read a server's document and call its tools, strictly validated, with cards; others see nothing", async () => {
    const mark = `mcp${randomUUID().slice(0, 8)}`;
    const { results, list, finished } = await run(
      user,
      `${mark} [[tool:skills.read {"skill":"everything","action":"get-sum"}]] [[tool:everything.get-sum {"a":2,"b":3}]] [[tool:everything.get-sum {"a":"2","c":1}]] [[tool:everything.get-structured-content {"location":"Chicago"}]]`,
    );
    expect(finished?.outcome?.type).toBe("success");
    expect(await systemPrompt(mark)).toMatch(/^- everything \(.*get-sum.*\): Tools of the connected MCP server everything/m);
    expect(results[0]).toMatchObject({ data: { skill: "everything", actions: [{ action: "everything.get-sum", kind: "read", input: { properties: { a: { type: "number" } }, additionalProperties: false } }] } });
    expect(JSON.stringify(results[1])).toContain("The sum of 2 and 3 is 5");
    expect(results[2]).toMatchObject({ status: "failure", error: { code: "INVALID_ACTION_INPUT", module: "everything", method: "get-sum", input_schema: { required: ["a", "b"] } } });
    expect(JSON.stringify(results[2])).toMatch(/must be number/);

    // Cards: text as prose, structuredContent as rows, never raw JSON.
    const cards = list.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => (e.metadata as { ui_schema: unknown }).ui_schema);
    expect(JSON.stringify(cards[1])).toContain("The sum of 2 and 3 is 5");
    expect(cards[2]).toBeNull();
    const weather = JSON.stringify(cards[3]);
    expect(weather).toContain('"type":"key_value"');
    expect(weather).toContain('"label":"Temperature"');
    expect(weather).not.toContain('{\\"temperature');

    // A user without a grant is shown nothing of it and cannot call it.
    const stranger = await createTestUser();
    const mark2 = `mcp${randomUUID().slice(0, 8)}`;
    const other = await run(stranger, `${mark2} [[tool:everything.get-sum {"a":1,"b":1}]] [[tool:skills.read {"skill":"tickets"}]]`);
    expect(await systemPrompt(mark2)).not.toContain("everything");
    expect(other.results[0]).toMatchObject({ status: "failure", error: { code: "UNKNOWN_ACTION" } });
    expect(other.results[1]).toMatchObject({ status: "failure", error: { code: "SKILL_NOT_FOUND" } });
  });

  it("asks a person by the tools' annotations: a read never, a destructive call under `others`", async () => {
    await data(await trpcPost("approvalPolicy.set", { policy: "others" }, userCookie));
    const read = await run(user, `[[tool:tickets.find_ticket {"id":"T-9"}]] [[tool:tickets.create_ticket {"title":"Paper jam"}]]`);
    expect(read.finished?.outcome?.type).toBe("success");
    expect(read.results[0]).toMatchObject({ module: "tickets", method: "find_ticket", data: { structuredContent: { id: "T-9", status: "open" } } });
    expect(JSON.stringify(read.results[1])).toContain("Paper jam");
    const destructive = await run(user, `[[tool:tickets.delete_ticket {"id":"T-9"}]]`);
    expect(destructive.finished?.outcome?.type).toBe("interrupt");
    const interrupt = destructive.finished!.outcome!.interrupts![0]!;
    expect(interrupt.message).toBe("Let the assistant use “delete ticket” on tickets?");
    // Approved, the call is made by the run that carries the decision, with its card.
    const continued = (await collectSse(await decide(user.apiKey, interrupt.id, { approve: true }, { stream: true }))).map((f) => JSON.parse(f.data) as Event);
    const answered = continued.find((e) => e.type === "TOOL_CALL_RESULT")!;
    expect(answered.content).toContain("Deleted ticket T-9");
    expect(JSON.stringify((answered.metadata as { ui_schema: unknown }).ui_schema)).toContain("Delete ticket · on tickets");

    // Under `always` every write asks, and a read still does not.
    await data(await trpcPost("approvalPolicy.set", { policy: "always" }, userCookie));
    const always = await run(user, `[[tool:tickets.find_ticket {"id":"T-9"}]] [[tool:tickets.create_ticket {"title":"Toner"}]]`);
    expect(always.results[0]).toMatchObject({ method: "find_ticket", data: expect.any(Object) });
    expect(always.finished?.outcome?.type).toBe("interrupt");
    await data(await trpcPost("approvalPolicy.set", { policy: "never" }, userCookie));
  });

  it("makes a non-idempotent call once per tool call id, answering a repeat with the first answer", async () => {
    const call = { userId: user.id, runId: randomUUID(), toolCallId: `call_${randomUUID()}`, args: { module: "tickets", method: "create_ticket", input: { title: "Once" } } };
    const before = tickets.created;
    const first = await runProjectCli(call);
    const again = await runProjectCli(call);
    expect(tickets.created).toBe(before + 1);
    expect(again.toolResponseText).toBe(first.toolResponseText);
    // The same id for another call is refused rather than answered with the wrong result.
    const reused = await runProjectCli({ ...call, args: { ...call.args, input: { title: "Twice" } } });
    expect(reused.output).toMatchObject({ status: "failure", error: { code: "TOOL_CALL_ID_REUSED" } });
    expect(tickets.created).toBe(before + 1);
  });

  it("answers a tool error while the server is down, the run completes, and reconnects once it is back", async () => {
    await tickets.stop();
    const down = await run(user, `[[tool:tickets.find_ticket {"id":"T-1"}]]`);
    expect(down.results[0]).toMatchObject({ status: "failure", error: { code: "TOOL_UNAVAILABLE", retryable: true } });
    expect(down.finished?.outcome?.type).toBe("success");
    await tickets.start();
    const back = await run(user, `[[tool:tickets.find_ticket {"id":"T-1"}]]`);
    expect(back.results[0]).toMatchObject({ method: "find_ticket", data: { structuredContent: { id: "T-1" } } });
  });

  it("refuses an answer over the size bound as a tool error, and the next call gets a new connection", async () => {
    const { results, finished } = await run(user, `[[tool:tickets.export_tickets {}]] [[tool:tickets.find_ticket {"id":"T-4"}]]`);
    expect(results[0]).toMatchObject({ status: "failure", error: { code: "RESULT_TOO_LARGE" } });
    expect(results[1]).toMatchObject({ method: "find_ticket", data: { structuredContent: { id: "T-4" } } });
    expect(finished?.outcome?.type).toBe("success");
  });

  it("follows notifications/tools/list_changed", async () => {
    await tickets.addCloseTool();
    await waitFor(async () => (await (await trpcGet("mcpServers.list", undefined, { cookie: adminCookie })).text()).includes("close_ticket"), 15_000);
    const closed = await run(user, `[[tool:tickets.close_ticket {"id":"T-1"}]]`);
    expect(JSON.stringify(closed.results[0])).toContain("Closed ticket T-1");
  });

  it("never lets the server's token reach an event, the history or a model request", async () => {
    const mark = `canary${randomUUID().slice(0, 8)}`;
    const { list, body } = await run(user, `${mark} [[tool:tickets.find_ticket {"id":"T-2"}]] [[tool:skills.read {"skill":"tickets"}]]`);
    expect(tickets.authorizations).toContain(`Bearer ${CANARY}`);
    const history = await (await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${body.threadId}`, { headers: { authorization: `Bearer ${user.apiKey}` } })).text();
    const requests = await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${mark}`)).text();
    expect(history).toContain("T-2");
    for (const seen of [JSON.stringify(list), history, requests]) expect(seen).not.toContain(CANARY);
  });

  it("keeps the token out of an instance's logs, at debug level, through a refused registration and calls", async () => {
    let logs = "";
    const extra = await startExtraServer({ LOG_LEVEL: "debug" }, { onOutput: (text) => (logs += text) });
    try {
      const cookie = (await signInOverHttp(admin.email, admin.password, extra.url))!;
      const post = (procedure: string, input: unknown) =>
        fetch(`${extra.url}/api/trpc/${procedure}`, { method: "POST", headers: { cookie, "content-type": "application/json", origin: extra.url }, body: JSON.stringify({ json: input }) });
      expect((await post("mcpServers.register", { name: "tickets_logged", url: tickets.url, bearerToken: `${CANARY}-wrong` })).status).toBe(400);
      expect((await post("mcpServers.register", { name: "tickets_logged", url: tickets.url, bearerToken: CANARY })).status).toBe(200);
      expect((await post("mcpServers.grant", { name: "tickets_logged", email: user.email })).status).toBe(200);
      const body = runInput({}, `[[tool:tickets_logged.find_ticket {"id":"T-3"}]] [[tool:tickets_logged.find_ticket {"id":3}]]`);
      const res = await fetch(`${extra.url}/api/v1/agent/runs`, { method: "POST", headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(body) });
      expect(JSON.stringify(await collectSse(res))).toContain("T-3");
      await waitFor(() => logs.includes("project_cli call"), 10_000);
      expect(logs).not.toContain(CANARY);
    } finally {
      extra.child.kill("SIGTERM");
    }
  }, 90_000);

  it("registers, lists and removes a server with npm run admin, never printing its token", async () => {
    const admin = (...args: string[]) =>
      promisify(execFile)(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "--conditions=react-server", "scripts/admin.ts", ...args], {
        env: { ...process.env, LOG_LEVEL: "silent" },
        timeout: 90_000,
      });
    const registered = await admin("mcp:register", "--name", "tickets_cli", "--url", tickets.url, "--token", CANARY, "--header", "X-Team: support");
    expect(registered.stdout).toContain("tickets_cli.delete_ticket  write");
    const listed = await admin("mcp:list");
    expect(listed.stdout).toMatch(/^tickets_cli {2}http:\/\/127\.0\.0\.1:\d+\/mcp {2}auth {2}tools: find_ticket \(read\)/m);
    for (const out of [registered, listed]) expect(out.stdout + out.stderr).not.toContain(CANARY);
    await admin("mcp:remove", "--name", "tickets_cli");
    expect((await admin("mcp:list")).stdout).not.toContain("tickets_cli");
  }, 180_000);

  it("falls back to the older HTTP+SSE transport for a server that only speaks that", async () => {
    const legacy = await startEverythingServer("sse");
    try {
      const registered = await data<{ tools: { name: string }[] }>(await trpcPost("mcpServers.register", { name: "legacy", url: legacy.url }, adminCookie));
      expect(registered.tools.map((t) => t.name)).toContain("get-sum");
      await data(await trpcPost("mcpServers.grant", { name: "legacy", email: user.email }, adminCookie));
      const { results } = await run(user, `[[tool:legacy.get-sum {"a":4,"b":5}]]`);
      expect(JSON.stringify(results[0])).toContain("The sum of 4 and 5 is 9");
    } finally {
      await legacy.stop();
    }
  }, 60_000);

  it("serves a runner's tools/call with the server its binding was granted, under the same checks", async () => {
    const RUNNER_ID = "plugin:dispatch-tests/mcp-caller/default";
    // The runner calls project_cli with the JSON its user sent, after listing the skills it may use.
    const runner = defineRunner({
      manifest: { id: RUNNER_ID, name: "default", label: { en_US: "MCP caller" }, capabilities: { streaming: true, tool_calling: true }, permissions: { tools: ["call"] }, context: { bootstrap: "none" } },
      async *run(ctx, { host }) {
        const call = (parameters: unknown) => host.tools.call({ tool_name: "project_cli", tool_call_id: `call_${randomUUID().replaceAll("-", "")}`, parameters: parameters as Record<string, unknown> });
        const listed = await call({ module: "skills", method: "list", input: {} });
        const answer = await call(JSON.parse(inputText(ctx)));
        yield completed(`${listed.tool_response_text}\n${answer.tool_response_text}`);
        yield runCompleted({ finish_reason: "stop" });
      },
    });
    const secret = `mcp-${randomUUID()}`;
    const started = await startRunners({ secret, hostUrl: baseUrl(), runners: [runner] });
    try {
      expect((await registerRunner({ url: started.url, secret })).runnerIds).toEqual([RUNNER_ID]);
      const [bound, unbound] = await Promise.all([createTestUser(), createTestUser()]);
      const binding = await bindRunner({ runnerId: RUNNER_ID, email: bound.email });
      await bindRunner({ runnerId: RUNNER_ID, email: unbound.email });
      await data(await trpcPost("mcpServers.grant", { name: "everything", bindingId: binding.id, tools: ["get-sum"] }, adminCookie));
      const answer = async (who: User, call: unknown) => {
        const frames = await collectSse(await postRun(who.apiKey, runInput({}, JSON.stringify(call)), { stream: true }));
        return frames.map((f) => JSON.parse(f.data) as Event).filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
      };
      const sum = await answer(bound, { module: "everything", method: "get-sum", input: { a: 20, b: 22 } });
      expect(sum).toContain("The sum of 20 and 22 is 42");
      expect(sum).toMatch(/"name":"everything","card":"everything \(get-sum\)/);
      // Only the granted tool; and a user whose binding has no grant has no such module.
      expect(await answer(bound, { module: "everything", method: "echo", input: { message: "hi" } })).toContain("UNKNOWN_ACTION");
      expect(await answer(unbound, { module: "everything", method: "get-sum", input: { a: 1, b: 2 } })).toContain("UNKNOWN_ACTION");
    } finally {
      await started.close();
    }
  }, 60_000);
});
