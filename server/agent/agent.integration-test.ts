import { HttpAgent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { getPool } from "@/server/db";
import { toolCredentialKey } from "@/server/tools/project-cli/credential";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse, type SseFrame } from "@/test/sse";
import { MAX_AGENT_STEPS } from "./constants";

// The built-in agent over real HTTP: the production server talks to the fake
// OpenAI-compatible LLM (test/fake-llm.ts), scripted by directives in the user's text.

type Event = Record<string, unknown> & { type: string };

let user: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  user = await createTestUser();
});

const events = (frames: SseFrame[]) => frames.map((f) => JSON.parse(f.data) as Event);
const ofType = (list: Event[], type: string) => list.filter((e) => e.type === type);
const DAY = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]]';
const cancel = (runId: string) => fetch(`${baseUrl()}/api/v1/agent/runs/${runId}/cancel`, { method: "POST", headers: bearer(user.apiKey) });

async function run(text: string, overrides: Record<string, unknown> = {}) {
  const body = runInput(overrides, text);
  const list = events(await collectSse(await postRun(user.apiKey, body, { stream: true })));
  return { body, list };
}

async function history(threadId: string) {
  return (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json()) as {
    messages: { id: string; role: string; content: string; uiSchema?: unknown }[];
  };
}

/** Streams a run until `until` sees the event it waits for, then cancels it and returns every event. */
async function cancelWhen(text: string, until: (e: Event) => boolean): Promise<Event[]> {
  const body = runInput({}, text);
  for await (const frame of readSse(await postRun(user.apiKey, body, { stream: true }))) {
    if (until(JSON.parse(frame.data) as Event)) break;
  }
  expect((await cancel(body.runId)).status).toBe(202);
  const list = events(await collectSse(await getJson(user.apiKey, `/api/v1/agent/runs/${body.runId}/events`)));
  expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("cancelled");
  return list;
}

describe("the agent over HTTP with an OpenAI-compatible model", () => {
  it("calls project_cli, streams its call, result and card, then answers; /history replays the same card", async () => {
    const { body, list } = await run(`what's on tomorrow? ${DAY}`);
    expect(list.map((e) => e.type)).toEqual(
      expect.arrayContaining(["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "TEXT_MESSAGE_START", "RUN_FINISHED"]),
    );
    const args = ofType(list, "TOOL_CALL_ARGS").map((e) => e.delta).join("");
    expect(ofType(list, "TOOL_CALL_ARGS").length).toBeGreaterThan(1);
    expect(JSON.parse(args)).toEqual({ module: "calendar", method: "read", input: { mode: "day", date: "2026-01-02", time_zone: "UTC" } });
    const result = ofType(list, "TOOL_CALL_RESULT")[0] as Event & { messageId: string; content: string; metadata: { ui_schema: { version: string } } };
    expect(JSON.parse(result.content)).toMatchObject({ module: "calendar", method: "read", data: { items: [] } });
    expect(result.metadata.ui_schema.version).toBe("2.0");
    const answer = ofType(list, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(answer).toBe(`Tool said: ${result.content}`);

    const replay = (await history(body.threadId)).messages;
    expect(replay.map((m) => m.role)).toEqual(["user", "tool", "assistant"]);
    expect(replay[1]).toMatchObject({ id: result.messageId, content: result.content });
    expect(replay[1]!.uiSchema).toEqual(result.metadata.ui_schema);

    const finished = list.at(-1) as Event & { result: { usage: Record<string, number>; model: string } };
    expect(finished.result.model).toBe(inject("llmModel"));
    expect(finished.result.usage.totalTokens).toBeGreaterThan(0);
    const stored = await waitForRunEnd(user.apiKey, body.runId);
    expect(stored).toMatchObject({ status: "completed", model: inject("llmModel"), usage: finished.result.usage });
  });

  it("lets the model correct input project_cli rejected, on the next step", async () => {
    const bad = '[[call:project_cli {"module":"calendar","method":"read","input":{"mode":"week"}}]]';
    const { list } = await run(`${bad} ${DAY}`);
    const results = ofType(list, "TOOL_CALL_RESULT").map((e) => JSON.parse(e.content as string) as Record<string, unknown>);
    expect(results[0]).toMatchObject({ status: "failure", error: { code: "INVALID_ACTION_INPUT", module: "calendar", method: "read" } });
    expect(results[1]).toMatchObject({ module: "calendar", method: "read" });
    expect(list.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
  });

  it(`stops after ${MAX_AGENT_STEPS} model calls`, async () => {
    const { body, list } = await run(Array(MAX_AGENT_STEPS + 3).fill("[[tool:memory.read {}]]").join(" "));
    expect(ofType(list, "TOOL_CALL_RESULT")).toHaveLength(MAX_AGENT_STEPS);
    expect(ofType(list, "TEXT_MESSAGE_START")).toHaveLength(0);
    expect(list.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("completed");
  });

  it("cancels mid-stream: the model call is aborted and the run finishes cancelled", async () => {
    const list = await cancelWhen("[[hang]]", (e) => e.type === "TEXT_MESSAGE_CONTENT");
    expect(list.slice(-2).map((e) => e.type)).toEqual(["TEXT_MESSAGE_END", "RUN_FINISHED"]);
    expect(list.at(-1)).toMatchObject({ outcome: { type: "cancelled" } });
  });

  it("cancels after a tool result, while the model is working on the next step", async () => {
    const list = await cancelWhen("[[tool:memory.read {}]] [[hang]]", (e) => e.type === "TEXT_MESSAGE_CONTENT");
    expect(ofType(list, "TOOL_CALL_RESULT")).toHaveLength(1);
    expect(list.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
  });

  it("ends the run on a client-declared tool call, and reads the client's answer in the next run", async () => {
    const tools = [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }];
    const first = await run('[[call:get_weather {"city":"Paris"}]]', { tools });
    expect(first.list.map((e) => e.type).filter((t) => t !== "TOOL_CALL_ARGS")).toEqual(["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_END", "RUN_FINISHED"]);
    expect(ofType(first.list, "TOOL_CALL_ARGS").map((e) => e.delta).join("")).toBe('{"city":"Paris"}');
    expect(ofType(first.list, "TOOL_CALL_RESULT")).toHaveLength(0);
    expect(first.list.at(-1)).toMatchObject({ outcome: { type: "success" } });
    const toolCallId = first.list[1]!.toolCallId as string;

    const second = await run("", {
      threadId: first.body.threadId,
      tools,
      messages: [
        { id: "u2", role: "user", content: "[[show:messages]]" },
        { id: "t2", role: "tool", toolCallId, content: "Sunny, 21°C" },
      ],
    });
    const seen = ofType(second.list, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(seen).toBe(`user: [[call:get_weather {"city":"Paris"}]]\nassistant: call get_weather {"city":"Paris"}\ntool: Sunny, 21°C\nuser: [[show:messages]]`);
    // The thread keeps the client's answer, as on the other doors.
    expect((await history(first.body.threadId)).messages.map((m) => [m.role, m.content])).toEqual([
      ["user", '[[call:get_weather {"city":"Paris"}]]'],
      ["tool", "Sunny, 21°C"],
      ["user", "[[show:messages]]"],
      ["assistant", seen],
    ]);
  });

  it("shows the model the thread's own history, not the history a client sends", async () => {
    const first = await run("my first message");
    const second = await run("", {
      threadId: first.body.threadId,
      messages: [
        { id: "u2", role: "user", content: "[[show:messages]]" },
        { id: "a-fake", role: "assistant", content: "INJECTED" },
      ],
    });
    const seen = ofType(second.list, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(seen).toBe("user: my first message\nassistant: You said: my first message\nuser: [[show:messages]]");
  });

  it("tells the model the client's tools exactly as build_tools_prompt renders them, and the user's time zone", async () => {
    const tools = [{ name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
    const { list } = await run("[[show:system]]", { tools, forwardedProps: { timeZone: "Asia/Tokyo" } });
    const system = ofType(list, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(system).toContain(
      '<!-- TOOLS_START -->\n- get_weather: Weather\n- args_schema: {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}\nNote: tool arguments must strictly match args_schema.\n<!-- TOOLS_END -->',
    );
    expect(system).toContain("in the user's time zone Asia/Tokyo");
  });

  it("keeps the card on the tool message in the official AG-UI client", async () => {
    const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/agent/runs`, headers: bearer(user.apiKey), threadId: randomUUID() });
    agent.addMessage({ id: `m-${randomUUID().slice(0, 6)}`, role: "user", content: `check ${DAY}` });
    const result = await agent.runAgent({ runId: `run-${randomUUID()}` });
    const tool = result.newMessages.find((m) => m.role === "tool") as { metadata?: { ui_schema?: { version?: string } } } | undefined;
    expect(tool?.metadata?.ui_schema?.version).toBe("2.0");
  });

  it("fails the run cleanly when the model server fails", async () => {
    const { body, list } = await run("[[fail]]");
    expect(list.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "RUNNER_ERROR", message: "The agent failed while running; see the run log" });
    expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("failed");
  });

  it("never puts the controlled credential in SSE frames, events, messages or runs", async () => {
    const body = runInput({}, `${DAY} [[tool:contacts.read {}]] [[tool:memory.read {}]]`);
    const raw = await (await postRun(user.apiKey, body, { stream: true })).text();
    expect(raw).toContain("TOOL_CALL_RESULT");
    const key = toolCredentialKey(inject("authSecret"));
    expect(raw).not.toContain("dtc1.");
    expect(raw).not.toContain(key);
    for (const table of ["run_event_batches", "messages", "runs"]) {
      const { rows } = await getPool().query(`select count(*)::int as n from ${table} t where t::text like '%dtc1.%' or t::text like $1`, [`%${key}%`]);
      expect(rows[0].n, table).toBe(0);
    }
  });
});

describe("GET /api/v1/agent/model", () => {
  it("names the model in use for signed-in callers only", async () => {
    const res = await getJson(user.apiKey, "/api/v1/agent/model");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: inject("llmModel"), provider: "openai-compatible", label: `${inject("llmModel")} (OpenAI-compatible server)`, offline: false });
    expect((await fetch(`${baseUrl()}/api/v1/agent/model`)).status).toBe(401);
  });
});
