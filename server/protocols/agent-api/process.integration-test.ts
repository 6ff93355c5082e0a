import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";
import { AgentResponseSchema, StreamObjectSchema, type AgentResponse, type StreamObject } from "./response";

// POST /api/v1/agent/process over real HTTP against the production server. The assertions
// hold for whichever runner is the default (the echo runner, or the AI agent with its
// scripted model): they check the protocol's structure and that the pieces add up, not the
// wording of the answer.

let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const userInput = (text: string) => [{ role: "user", type: "message", content: [{ type: "text", text }] }];

function postProcess(key: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/process`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const cancelResponse = (key: string, responseId: string) =>
  fetch(`${baseUrl()}/api/v1/agent/process/${encodeURIComponent(responseId)}/cancel`, { method: "POST", headers: bearer(key) });

async function streamObjects(res: Response): Promise<StreamObject[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const frames = await collectSse(res);
  expect(frames.every((f) => f.id === null)).toBe(true);
  return frames.map((f) => JSON.parse(f.data) as StreamObject);
}

/**
 * The stream's grammar: response created, in_progress; then messages, each created,
 * in_progress, its text deltas, one completed content (when it has content), completed;
 * then exactly one terminal response. Each message's deltas add up to its completed text,
 * and the terminal response's output holds exactly the completed messages.
 */
function expectWellFormedStream(objects: StreamObject[], terminal: string): AgentResponse {
  expect(objects.map((o) => o.sequence_number)).toEqual(objects.map((_, i) => i));
  for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
  const body = objects.filter((o) => !(o.object === "message" && (o.type === "heartbeat" || o.type === "error")));
  expect(body.slice(0, 2)).toMatchObject([
    { object: "response", status: "created" },
    { object: "response", status: "in_progress" },
  ]);
  const last = body.at(-1)!;
  expect(last).toMatchObject({ object: "response", status: terminal });
  const completedMessages: unknown[] = [];
  let i = 2;
  while (i < body.length - 1) {
    const created = body[i]!;
    expect(created).toMatchObject({ object: "message", status: "created" });
    const id = created.object === "message" ? created.id : "";
    expect(body[i + 1]).toMatchObject({ object: "message", id, status: "in_progress" });
    i += 2;
    let deltas = "";
    while (body[i]?.object === "content" && body[i]!.status === "in_progress") {
      const delta = body[i]!;
      expect(delta).toMatchObject({ object: "content", type: "text", delta: true, index: 0, msg_id: id });
      deltas += delta.object === "content" && delta.type === "text" ? delta.text : "";
      i++;
    }
    const maybeContent = body[i]!;
    if (maybeContent.object === "content") {
      expect(maybeContent).toMatchObject({ status: "completed", delta: false, msg_id: id });
      if (maybeContent.type === "text") expect(maybeContent.text).toBe(deltas);
      i++;
    }
    const done = body[i]!;
    expect(done).toMatchObject({ object: "message", id, status: "completed" });
    const { sequence_number: _seq, ...message } = done as StreamObject & { sequence_number: number };
    completedMessages.push(message);
    i++;
  }
  const response = AgentResponseSchema.parse(last);
  expect(response.output).toEqual(completedMessages);
  expect(body.filter((o) => o.object === "response")).toHaveLength(3);
  return response;
}

const answerText = (response: AgentResponse) =>
  response.output
    .filter((m) => m.type === "message" && m.role === "assistant")
    .flatMap((m) => m.content.map((c) => (c.type === "text" ? c.text : "")))
    .join("");

describe("POST /api/v1/agent/process, streaming", () => {
  it("streams the spec's objects in order, numbered from 0, ending with the completed response", async () => {
    const objects = await streamObjects(await postProcess(alice.apiKey, { input: userInput("the quick brown fox") }));
    const response = expectWellFormedStream(objects, "completed");
    expect(response.id).toMatch(/^response_[0-9a-f-]{36}$/);
    expect(response.session_id).toMatch(UUID);
    for (const o of objects.filter((x) => x.object === "response")) expect(o).toMatchObject({ id: response.id, session_id: response.session_id });
    expect(answerText(response).length).toBeGreaterThan(0);
    expect(response.created_at).toBeLessThanOrEqual(response.completed_at!);
    expect(Math.abs(response.completed_at! - Date.now() / 1000)).toBeLessThan(60);
    expect(response.output.some((m) => m.type === "message" && m.role === "assistant")).toBe(true);
    // The response is a run like any other, with the response_id as its runId.
    const run = (await (await getJson(alice.apiKey, `/api/v1/agent/runs/${response.id}`)).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ runId: response.id, threadId: response.session_id, protocol: "agent-api", status: "completed" });
  });

  it("uses the caller's response_id, and repeating it follows the same run instead of starting another", async () => {
    const responseId = `response_${randomUUID()}`;
    const first = expectWellFormedStream(await streamObjects(await postProcess(alice.apiKey, { input: userInput("once"), response_id: responseId })), "completed");
    expect(first.id).toBe(responseId);
    const again = await postProcess(alice.apiKey, { input: userInput("twice?"), response_id: responseId, stream: false });
    expect(again.status).toBe(200);
    const replay = (await again.json()) as AgentResponse;
    expect(replay).toMatchObject({ id: responseId, session_id: first.session_id, status: "completed" });
    expect(replay.output).toEqual(first.output);
    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${first.session_id}`)).json()) as { messages: { role: string }[] };
    expect(history.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });
});

describe("POST /api/v1/agent/process, stream false and sessions", () => {
  it("answers one AgentResponse with the completed output", async () => {
    const res = await postProcess(alice.apiKey, { input: userInput("hello there"), stream: false, temperature: 0.3, top_p: 0.9, max_tokens: 200, seed: 1, n: 1, stop: ["\n\n\n"] });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const response = AgentResponseSchema.parse(await res.json());
    expect(response).toMatchObject({ object: "response", status: "completed", error: null, completed_at: expect.any(Number) });
    expect(response).not.toHaveProperty("sequence_number");
    expect(answerText(response).length).toBeGreaterThan(0);
    for (const m of response.output) expect(m.status).toBe("completed");
  });

  it("continues a session across requests: same session_id, both turns in the thread's history, earlier turns not resent", async () => {
    const first = AgentResponseSchema.parse(await (await postProcess(alice.apiKey, { input: userInput("first turn"), stream: false })).json());
    const sessionId = first.session_id;
    const resent = await postProcess(alice.apiKey, { input: [...userInput("first turn"), ...userInput("second turn")], session_id: sessionId });
    expect(resent.status).toBe(400);
    expect(((await resent.json()) as { error: { message: string; details: { field: string } } }).error).toMatchObject({
      details: { field: "input[0]" },
      message: expect.stringContaining("existing session takes only its new tail"),
    });
    const secondObjects = await streamObjects(await postProcess(alice.apiKey, { input: userInput("second turn"), session_id: sessionId }));
    const second = expectWellFormedStream(secondObjects, "completed");
    expect(second.session_id).toBe(sessionId);
    expect(second.id).not.toBe(first.id);
    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${sessionId}`)).json()) as {
      threadId: string;
      messages: { role: string; content: string }[];
    };
    expect(history.threadId).toBe(sessionId);
    expect(history.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["first turn", "second turn"]);
    const assistant = history.messages.filter((m) => m.role === "assistant").map((m) => m.content);
    expect(assistant).toEqual([answerText(first), answerText(second)].filter((t) => t.length > 0));
    expect(history.messages[0]).toMatchObject({ role: "user", content: "first turn" });
  });

  it("keeps sessions private: another user's session_id is not found", async () => {
    const mine = AgentResponseSchema.parse(await (await postProcess(alice.apiKey, { input: userInput("mine"), stream: false })).json());
    const res = await postProcess(bob.apiKey, { input: userInput("let me in"), session_id: mine.session_id });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });
});

describe("POST /api/v1/agent/process, rejections before streaming", () => {
  it.each<[string, unknown, string]>([
    ["a blank session_id", { input: userInput("x"), session_id: " " }, "session_id"],
    ["an unknown field", { input: userInput("x"), temperature: 0.1, tempreature: 0.2 }, "tempreature"],
    ["n out of range", { input: userInput("x"), n: 9 }, "n"],
    ["n above 1, which would be silently one answer", { input: userInput("x"), n: 2 }, "n"],
    ["no new turn", { input: [{ role: "system", content: [{ type: "text", text: "be nice" }] }] }, "input"],
  ])("answers 400 JSON naming the field for %s", async (_name, body, field) => {
    const res = await postProcess(alice.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const error = ((await res.json()) as { error: { code: string; message: string; details?: { field?: string } } }).error;
    expect(error).toMatchObject({ code: "BAD_REQUEST", details: { field } });
    expect(error.message).toContain(field);
  });

  it("answers 401 without credentials", async () => {
    const res = await fetch(`${baseUrl()}/api/v1/agent/process`, { method: "POST", body: JSON.stringify({ input: userInput("x") }) });
    expect(res.status).toBe(401);
  });
});

// The rest tells the default runner what to do through the scripted test model's
// directives in the user text (test/fake-llm.ts): [[hang]] streams one token and then
// waits until the run is cancelled, [[fail]] makes the model call fail, [[tool:...]] has
// the agent call project_cli first.

type Frames = ReturnType<typeof readSse>;

/** Reads objects into `into` until one matches (the stream stays open), or to the end without `until`. */
async function readObjects(frames: Frames, into: StreamObject[], until?: (o: StreamObject) => boolean): Promise<void> {
  for (;;) {
    const next = await frames.next();
    if (next.done) return;
    into.push(JSON.parse(next.value.data) as StreamObject);
    if (until?.(into.at(-1)!)) return;
  }
}

const isContent = (o: StreamObject) => o.object === "content";

/** Starts a response that stays in progress, and reads its stream up to the first delta. */
async function startHangingResponse(key: string) {
  const res = await postProcess(key, { input: userInput("[[hang]] keep going") });
  expect(res.status).toBe(200);
  const frames = readSse(res);
  const seen: StreamObject[] = [];
  await readObjects(frames, seen, isContent);
  expect(seen.at(-1)).toMatchObject({ object: "content", delta: true });
  const first = seen[0] as AgentResponse;
  return { responseId: first.id, sessionId: first.session_id, seen, frames };
}

describe("busy sessions and cancel", () => {
  it("answers 409 JSON before streaming when the session already has a response in progress", async () => {
    const busy = await startHangingResponse(alice.apiKey);
    const res = await postProcess(alice.apiKey, { input: userInput("me too"), session_id: busy.sessionId });
    expect(res.status).toBe(409);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain(busy.responseId);
    expect((await cancelResponse(alice.apiKey, busy.responseId)).status).toBe(202);
    await waitForRunEnd(alice.apiKey, busy.responseId);
  });

  it("cancels a response mid-stream: the stream ends with response canceled; cancel is idempotent and owner-only", async () => {
    const busy = await startHangingResponse(alice.apiKey);
    expect((await cancelResponse(bob.apiKey, busy.responseId)).status).toBe(404);
    const cancel = await cancelResponse(alice.apiKey, busy.responseId);
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toMatchObject({ object: "response", id: busy.responseId, session_id: busy.sessionId });
    const objects = [...busy.seen];
    await readObjects(busy.frames, objects);
    const response = expectWellFormedStream(objects, "canceled");
    expect(response).toMatchObject({ id: busy.responseId, session_id: busy.sessionId, error: null });
    expect((await waitForRunEnd(alice.apiKey, busy.responseId)).status).toBe("cancelled");
    const again = await cancelResponse(alice.apiKey, busy.responseId);
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ id: busy.responseId, status: "canceled", completed_at: expect.any(Number) });
  });

  it("lets a client that disconnected rejoin by response_id and still cancel", async () => {
    const busy = await startHangingResponse(alice.apiKey);
    await busy.frames.return(undefined);
    const rejoin = await postProcess(alice.apiKey, { input: userInput("ignored"), session_id: busy.sessionId, response_id: busy.responseId });
    expect(rejoin.status).toBe(200);
    const frames = readSse(rejoin);
    const objects: StreamObject[] = [];
    await readObjects(frames, objects, isContent);
    // The run went on without the first client: the rejoined stream starts from the beginning.
    expect(objects).toEqual(busy.seen);
    await cancelResponse(alice.apiKey, busy.responseId);
    await readObjects(frames, objects);
    expectWellFormedStream(objects, "canceled");
  });
});

describe("failure and tool calls", () => {
  it("ends a failed run with response failed and error {code, message}, nothing after it", async () => {
    const objects = await streamObjects(await postProcess(alice.apiKey, { input: userInput("[[fail]]") }));
    const response = expectWellFormedStream(objects, "failed");
    expect(response.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    // The spec's error message comes just before the end, saying the same.
    expect(objects.at(-2)).toMatchObject({ object: "message", type: "error", ...response.error });
    expect(response.completed_at).toEqual(expect.any(Number));
  });

  it("streams the agent's tool call as function_call and function_call_output with one call_id, as the thread keeps it", async () => {
    const objects = await streamObjects(await postProcess(alice.apiKey, { input: userInput("[[tool:memory.read {}]] what do you remember?") }));
    const response = expectWellFormedStream(objects, "completed");
    const call = response.output.find((m) => m.type === "function_call");
    const result = response.output.find((m) => m.type === "function_call_output");
    expect(call?.content[0]).toMatchObject({ type: "data", data: { call_id: expect.any(String), name: "project_cli", arguments: expect.any(String) } });
    const callId = call?.content[0]?.type === "data" ? call.content[0].data.call_id : undefined;
    expect(result?.content[0]).toMatchObject({ type: "data", data: { call_id: callId, output: expect.any(String) } });
    const output = result?.content[0]?.type === "data" ? result.content[0].data.output : undefined;
    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${response.session_id}`)).json()) as {
      messages: { id: string; role: string; content: string }[];
    };
    expect(history.messages.find((m) => m.role === "tool")).toMatchObject({ id: result?.id, content: output });
  });
});
