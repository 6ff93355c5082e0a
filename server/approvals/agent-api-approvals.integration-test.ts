import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { StreamObjectSchema, type StreamObject } from "@/server/protocols/agent-api/response";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { collectSse } from "@/test/sse";
import { fact, rememberTurn } from "./test-support";

// The Agent API's own approval messages over real HTTP (POST /api/v1/agent/process): a response
// that needs a person ends `incomplete` with an mcp_approval_request; an mcp_approval_response on
// the same session continues the run.

let user: Awaited<ReturnType<typeof createTestUser>>;
let other: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  [user, other] = await Promise.all([createTestUser(), createTestUser()]);
});

const key = () => `a_${randomUUID().replaceAll("-", "").slice(0, 10)}`;

async function process(apiKey: string, body: unknown): Promise<{ status: number; objects: StreamObject[]; text: string }> {
  const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) return { status: res.status, objects: [], text: await res.text() };
  const objects = (await collectSse(res)).map((f) => JSON.parse(f.data) as StreamObject);
  for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
  return { status: 200, objects, text: "" };
}

const said = (text: string) => [{ role: "user", type: "message", content: [{ type: "text", text }] }];
const last = (objects: StreamObject[]) => objects.at(-1) as { object: string; status: string; output: { type: string; content: { data?: Record<string, unknown> }[] }[] };

describe("Agent API approvals", () => {
  it("ends awaiting approval with an mcp_approval_request; mcp_approval_response on the session runs it once, or tells the model no", async () => {
    const k = key();
    const asked = await process(user.apiKey, { input: said(rememberTurn(k)) });
    const end = last(asked.objects);
    expect(end).toMatchObject({ object: "response", status: "incomplete" });
    const request = end.output.find((m) => m.type === "mcp_approval_request")!.content[0]!.data!;
    expect(request).toMatchObject({ name: "project_cli", id: expect.any(String), call_id: expect.any(String) });
    expect(JSON.parse(request.arguments as string)).toMatchObject({ module: "memory", method: "update" });
    const sessionId = (asked.objects[0] as { session_id: string }).session_id;
    expect(await fact(user.id, k)).toBeNull();

    const answer = (approve: boolean, reason?: string) => [{ type: "mcp_approval_response", approval_request_id: request.id, approve, ...(reason ? { reason } : {}) }];
    // Someone else cannot answer it, even naming the session.
    expect((await process(other.apiKey, { session_id: sessionId, input: answer(true) })).status).toBe(404);
    // Without the session it belongs to, the answer is refused and says what is missing.
    const missing = await process(user.apiKey, { input: answer(true) });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("session_id");

    const approved = await process(user.apiKey, { session_id: sessionId, input: answer(true) });
    const done = last(approved.objects);
    expect(done).toMatchObject({ object: "response", status: "completed" });
    const output = done.output.find((m) => m.type === "function_call_output")!.content[0]!.data!;
    expect(output).toMatchObject({ call_id: request.call_id });
    expect(await fact(user.id, k)).toBe("yes");

    const denied = await process(user.apiKey, { input: said(rememberTurn(key())) });
    const second = last(denied.objects).output.find((m) => m.type === "mcp_approval_request")!.content[0]!.data!;
    const told = await process(user.apiKey, { session_id: sessionId, input: [{ type: "mcp_approval_response", approval_request_id: second.id, approve: false, reason: "no thanks" }] });
    expect(told.status).toBe(404);
    const deniedSession = (denied.objects[0] as { session_id: string }).session_id;
    const refusal = await process(user.apiKey, { session_id: deniedSession, input: [{ type: "mcp_approval_response", approval_request_id: second.id, approve: false, reason: "no thanks" }] });
    const words = last(refusal.objects).output.filter((m) => m.type === "message").flatMap((m) => m.content.map((c) => JSON.stringify(c))).join(" ");
    expect(words).toContain("NOT_APPROVED");
    expect(words).toContain("no thanks");
  });
});
