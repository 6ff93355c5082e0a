import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { createTestUser } from "@/test/helpers";
import { postRun, runInput } from "@/test/runs";

let user: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  user = await createTestUser();
});

async function rowsFor(threadId: string) {
  const { rows } = await getPool().query<{ threads: number; runs: number; messages: number }>(
    `select (select count(*)::int from threads where id::text = $1) as threads,
            (select count(*)::int from runs where thread_id::text = $1) as runs,
            (select count(*)::int from messages where thread_id::text = $1) as messages`,
    [threadId],
  );
  return rows[0]!;
}

const user1 = (content: unknown) => ({ id: "u1", role: "user", content });
const img = (extra: Record<string, unknown>) => ({ type: "binary", mimeType: "image/png", ...extra });
const signed = "https://storage.example.com/agent-inputs/u/x.png?signature=abc";

// Every rule of spec/agent-run-input.md's table, with its exact message.
const cases: [string, (b: ReturnType<typeof runInput>) => unknown, number, string][] = [
  ["threadId not a UUID", (b) => ({ ...b, threadId: "not-a-uuid" }), 400, "threadId must be a valid UUID"],
  ["runId over 128 characters", (b) => ({ ...b, runId: "r".repeat(129) }), 400, "runId exceeds length limit"],
  ["over 200 messages", (b) => ({ ...b, messages: [user1("hi"), ...Array.from({ length: 200 }, (_, i) => ({ id: `a${i}`, role: "assistant", content: "x" }))] }), 400, "RunAgentInput.messages exceeds limit"],
  ["user text over 10,000 characters", (b) => ({ ...b, messages: [user1("x".repeat(10_001))] }), 400, "RunAgentInput user message text exceeds limit"],
  ["no user message", (b) => ({ ...b, messages: [{ id: "s", role: "system", content: "sys" }] }), 400, "RunAgentInput.messages must contain exactly one user message"],
  ["two user messages", (b) => ({ ...b, messages: [user1("a"), user1("b")] }), 400, "RunAgentInput.messages must contain exactly one user message"],
  ["user message not first", (b) => ({ ...b, messages: [{ id: "s", role: "system", content: "sys" }, user1("hi")] }), 400, "RunAgentInput.messages[0].role must be user"],
  ["binary content not an image", (b) => ({ ...b, messages: [user1([img({ mimeType: "application/pdf", url: signed })])] }), 400, "binary content requires image mimeType"],
  ["binary content without url", (b) => ({ ...b, messages: [user1([img({})])] }), 400, "binary content requires url"],
  ["binary content with data", (b) => ({ ...b, messages: [user1([img({ url: signed, data: "iVBORw0KGgo=" })])] }), 400, "binary content data is not allowed"],
  ["AG-UI image part that is not an image", (b) => ({ ...b, messages: [user1([{ type: "image", source: { type: "url", value: signed, mimeType: "text/plain" } }])] }), 400, "binary content requires image mimeType"],
  ["AG-UI image part with inline data", (b) => ({ ...b, messages: [user1([{ type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" } }])] }), 400, "binary content data is not allowed"],
];

describe("POST /api/v1/agent/runs validation", () => {
  it.each(cases)("rejects %s with the spec's message and writes nothing", async (_name, mutate, status, message) => {
    const base = runInput();
    const body = mutate(base) as { threadId: string };
    const res = await postRun(user.apiKey, body);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(message);
    expect(await rowsFor(String(body.threadId))).toEqual({ threads: 0, runs: 0, messages: 0 });
  });

  it("rejects a payload over 256 KB with 413 and writes nothing", async () => {
    const body = runInput({ context: [{ description: "big", value: "x".repeat(262_144) }] });
    const res = await postRun(user.apiKey, body);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe("RunAgentInput payload exceeds size limit");
    expect(await rowsFor(body.threadId)).toEqual({ threads: 0, runs: 0, messages: 0 });
  });

  it("rejects malformed JSON and wrong types with a 400 naming the problem", async () => {
    const bad = await postRun(user.apiKey, null, { raw: "{not json" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/JSON/);

    const role = await postRun(user.apiKey, runInput({ messages: [user1("hi"), { id: "x", role: "wizard", content: "?" }] }));
    expect(role.status).toBe(400);
    expect(((await role.json()) as { error: { message: string } }).error.message).toContain("messages[1].role");

    const type = await postRun(user.apiKey, runInput({ messages: "hello" }));
    expect(type.status).toBe(400);
    expect(((await type.json()) as { error: { message: string } }).error.message).toContain("messages");
  });

  it("asks for credentials before reading the body", async () => {
    const res = await fetch(`${(await import("@/test/helpers")).baseUrl()}/api/v1/agent/runs`, {
      method: "POST",
      body: JSON.stringify(runInput({ threadId: randomUUID() })),
    });
    expect(res.status).toBe(401);
  });
});
