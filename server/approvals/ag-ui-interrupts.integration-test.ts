import { HttpAgent, type Interrupt } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { fact, rememberTurn } from "./test-support";

// The official @ag-ui/client 1.0 HttpAgent, unmodified and on its default settings, against the
// AG-UI-native door (POST /api/v1/ag-ui): it sees a valid interrupt outcome, refuses by itself to
// go on without answering it, and resumes with resume[]; the approved write then runs once.

let user: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  user = await createTestUser();
});

const agentOn = (threadId: string) => new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId });
const key = () => `h_${randomUUID().replaceAll("-", "").slice(0, 10)}`;

async function interrupted(agent: HttpAgent, text: string): Promise<Interrupt> {
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  let interrupts: Interrupt[] = [];
  await agent.runAgent({}, {
    onRunFinishedEvent: (params) => {
      if (params.outcome === "interrupt") interrupts = params.interrupts;
    },
  });
  expect(interrupts).toHaveLength(1);
  return interrupts[0]!;
}

describe("@ag-ui/client 1.0 HttpAgent and approvals", () => {
  it("sees the interrupt, is held to answer it, and resumes with resume[]: approved runs the write, the model goes on", async () => {
    const k = key();
    const agent = agentOn(randomUUID());
    const interrupt = await interrupted(agent, rememberTurn(k));
    expect(interrupt).toMatchObject({ reason: "tool_approval", responseSchema: { type: "object" }, metadata: { ui_schema: { status: "pending" } } });
    // The client kept the call it streamed, and holds the interrupt open.
    const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.id === interrupt.toolCallId);
    expect(JSON.parse(call!.function.arguments)).toMatchObject({ module: "memory", method: "update" });
    await expect(agent.runAgent({})).rejects.toThrow(/pending interrupt/);
    expect(await fact(user.id, k)).toBeNull();

    await agent.runAgent({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    const result = agent.messages.find((m) => m.role === "tool" && m.toolCallId === interrupt.toolCallId);
    expect(result).toBeDefined();
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: expect.stringContaining("Tool said:") });
    expect(await fact(user.id, k)).toBe("yes");
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it("cancelled is a denial the model hears of; edits are checked and name the field; then run as changed", async () => {
    const agent = agentOn(randomUUID());
    const first = await interrupted(agent, rememberTurn(key()));
    await agent.runAgent({ resume: [{ interruptId: first.id, status: "cancelled" }] });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: expect.stringContaining("NOT_APPROVED") });

    const k = key();
    const second = await interrupted(agent, rememberTurn(k, "draft"));
    const bad = await fetch(`${baseUrl()}/api/v1/ag-ui`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json" },
      body: JSON.stringify({
        threadId: agent.threadId,
        runId: randomUUID(),
        messages: agent.messages,
        tools: [],
        context: [],
        resume: [{ interruptId: second.id, status: "resolved", payload: { approved: true, editedArgs: { input: { facts: [{ key: "Bad Key", value: "x" }] } } } }],
      }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { field: string } } }).error.details.field).toBe("resume[0].payload.editedArgs.input.facts.0.key");
    await agent.runAgent({ resume: [{ interruptId: second.id, status: "resolved", payload: { approved: true, editedArgs: { input: { facts: [{ key: k, value: "edited" }] } } } }] });
    expect(await fact(user.id, k)).toBe("edited");
  });
});
