import { AgentCapabilitiesSchema } from "@ag-ui/core/schemas";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { pdfBytes } from "@/test/documents";
import { pngBytes } from "@/test/images";
import { getJson } from "@/test/runs";
import { collectSse } from "@/test/sse";

// GET /api/v1/ag-ui/info is derived from the running configuration (server/runs/service/
// capabilities.ts). This file holds it to its word: every capability it declares true is exercised
// here over real HTTP against the production server and the scripted model, and a capability
// declared with no check below fails, so nothing is declared that is not delivered.

type Event = { type: string } & Record<string, unknown>;
let user: Awaited<ReturnType<typeof createTestUser>>;
let declared: Record<string, unknown>;

beforeAll(async () => {
  user = await createTestUser({ approvalPolicy: "always" });
  const body = (await (await getJson(user.apiKey, "/api/v1/ag-ui/info")).json()) as { agents: { dispatch: { capabilities: unknown } } };
  declared = AgentCapabilitiesSchema.parse(body.agents.dispatch.capabilities) as Record<string, unknown>;
});

const marker = (word: string) => `${word}${randomUUID().slice(0, 8)}`;

function post(content: unknown, extra: Record<string, unknown> = {}, accept = "text/event-stream"): Promise<Response> {
  const body = { threadId: randomUUID(), runId: randomUUID(), state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: randomUUID(), role: "user", content }], ...extra };
  return fetch(`${baseUrl()}/api/v1/ag-ui`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json", accept }, body: JSON.stringify(body) });
}

async function run(content: unknown, extra: Record<string, unknown> = {}): Promise<Event[]> {
  const res = await post(content, extra);
  expect(res.status).toBe(200);
  return (await collectSse(res)).map((f) => JSON.parse(f.data) as Event);
}

const types = (events: Event[]) => events.map((e) => e.type);
const outcome = (events: Event[]) => (events.find((e) => e.type === "RUN_FINISHED")?.outcome as { type: string } | undefined)?.type;

/** The user content the scripted model received in its call whose text contains `word`. */
async function modelSaw(word: string): Promise<string> {
  const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(word)}`)).json()) as { body: { messages: { role: string; content: unknown }[] } }[];
  return JSON.stringify(calls[0]?.body.messages.findLast((m) => m.role === "user")?.content ?? null);
}

async function upload(data: Uint8Array, type: string, name: string): Promise<{ url: string; mime_type: string }> {
  const form = new FormData();
  form.set("file", new Blob([Buffer.from(data)], { type }), name);
  const res = await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(user.apiKey), body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as { url: string; mime_type: string };
}

const CHECKS: Record<string, () => Promise<void>> = {
  "transport.streaming": async () => {
    expect(types(await run("hello there"))).toEqual(expect.arrayContaining(["RUN_STARTED", "TEXT_MESSAGE_CONTENT", "RUN_FINISHED"]));
  },
  "transport.httpBinary": async () => {
    // Protobuf is AG-UI 1.0's: the client says it speaks 1.0, as @ag-ui/client does.
    const res = await post("hello in binary", { protocolVersion: "1.0.0" }, "application/vnd.ag-ui.event+proto");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/vnd.ag-ui.event+proto");
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
  },
  "transport.resumable": async () => {
    const events = await run("a run to rejoin");
    const runId = String(events[0]!.runId);
    // A client that lost the stream after the first event rejoins from there with Last-Event-ID.
    const all = await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, { headers: { ...bearer(user.apiKey), accept: "text/event-stream" } }));
    const rest = await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, { headers: { ...bearer(user.apiKey), accept: "text/event-stream", "last-event-id": all[0]!.id! } }));
    expect(rest.map((f) => f.id)).toEqual(all.slice(1).map((f) => f.id));
  },
  "tools.supported": async () => {
    const events = await run('[[tool:memory.read {}]] what do you know');
    expect(JSON.parse(String(events.find((e) => e.type === "TOOL_CALL_RESULT")?.content))).toMatchObject({ module: "memory", method: "read", data: { facts: expect.any(Array) } });
  },
  "tools.clientProvided": async () => {
    const tools = [{ name: "pick_colour", description: "Asks the user for a colour", parameters: { type: "object", properties: {} } }];
    const events = await run("[[call:pick_colour {}]] choose", { tools });
    expect(events.find((e) => e.type === "TOOL_CALL_START")?.toolCallName).toBe("pick_colour");
  },
  "state.snapshots": async () => {
    const events = await run("hello with state", { state: { mood: "calm" } });
    expect(events.find((e) => e.type === "STATE_SNAPSHOT")?.snapshot).toEqual({ mood: "calm" });
  },
  "state.deltas": async () => {
    const patch = JSON.stringify({ operations: [{ op: "replace", path: "/mood", value: "glad" }] });
    const events = await run(`[[call:update_state ${patch}]] cheer up`, { state: { mood: "calm" } });
    expect(events.find((e) => e.type === "STATE_DELTA")?.delta).toEqual([{ op: "replace", path: "/mood", value: "glad" }]);
  },
  "state.memory": async () => CHECKS["state.persistentState"]!(),
  "state.persistentState": async () => {
    const threadId = randomUUID();
    await run("keep this state", { threadId, state: { list: ["milk"] } });
    const next = await run("and now without it", { threadId, state: {} });
    expect(next.find((e) => e.type === "STATE_SNAPSHOT")?.snapshot).toEqual({ list: ["milk"] });
  },
  "reasoning.supported": async () => {
    const events = await run("[[think:first the facts]] a thoughtful answer");
    expect(types(events)).toEqual(expect.arrayContaining(["REASONING_START", "REASONING_MESSAGE_CONTENT", "REASONING_END", "TEXT_MESSAGE_CONTENT"]));
  },
  "reasoning.streaming": async () => CHECKS["reasoning.supported"]!(),
  "multimodal.input.image": async () => {
    const word = marker("picture");
    // Images go by the URL of their upload, never inline.
    const png = await upload(pngBytes(), "image/png", "dot.png");
    const image = { type: "image", source: { type: "url", value: png.url, mimeType: png.mime_type } };
    expect(outcome(await run([{ type: "text", text: `${word} what is this` }, image]))).toBe("success");
    expect(await modelSaw(word)).toContain("image");
  },
  "multimodal.input.pdf": async () => {
    const word = marker("report");
    const pdf = await upload(pdfBytes("Quarterly totals rose"), "application/pdf", "report.pdf");
    const document = { type: "document", source: { type: "url", value: pdf.url, mimeType: pdf.mime_type } };
    expect(outcome(await run([{ type: "text", text: `${word} summarise` }, document]))).toBe("success");
    expect(await modelSaw(word)).toContain("Quarterly totals rose");
  },
  "humanInTheLoop.supported": async () => CHECKS["humanInTheLoop.interrupts"]!(),
  "humanInTheLoop.approvals": async () => CHECKS["humanInTheLoop.interrupts"]!(),
  "humanInTheLoop.interrupts": async () => {
    const events = await run('[[tool:memory.update {"facts":[{"key":"capability_check","value":"yes"}]}]] remember');
    expect(outcome(events)).toBe("interrupt");
  },
  "humanInTheLoop.approveWithEdits": async () => {
    const threadId = randomUUID();
    const asked = await run('[[tool:memory.update {"facts":[{"key":"edited_check","value":"first"}]}]] remember', { threadId });
    const interrupt = (asked.find((e) => e.type === "RUN_FINISHED")!.outcome as { interrupts: { id: string }[] }).interrupts[0]!;
    const editedArgs = { module: "memory", method: "update", input: { facts: [{ key: "edited_check", value: "changed" }] } };
    const resumed = await run("", { threadId, messages: [], resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true, editedArgs } }] });
    // The edited write is what happened.
    expect(JSON.stringify(resumed.filter((e) => e.type === "TOOL_CALL_RESULT"))).toContain('\\"value\\":\\"changed\\"');
  },
};

/** Every leaf of the declaration that promises something: `true`, or a tool it lists. */
function promises(value: unknown, path: string[] = []): string[] {
  if (value === true) return [path.join(".")];
  if (Array.isArray(value) || typeof value !== "object" || value === null) return [];
  if (path.join(".") === "custom" || path.join(".") === "identity" || path.join(".") === "execution") return [];
  if (path.join(".") === "tools") {
    const { items, ...rest } = value as { items?: { name: string }[] };
    return [...Object.entries(rest).flatMap(([k, v]) => promises(v, [...path, k])), ...(items ?? []).map((t) => `tools.items.${t.name}`)];
  }
  return Object.entries(value).flatMap(([k, v]) => promises(v, [...path, k]));
}

CHECKS["tools.items.project_cli"] = CHECKS["tools.supported"]!;

describe("GET /api/v1/ag-ui/info declares only what is delivered", () => {
  it("has a check for every capability it declares", () => {
    expect(promises(declared).filter((p) => !CHECKS[p])).toEqual([]);
  });

  it("declares limits the runs keep: the agent's steps and the run's deadline, and no models", () => {
    expect(declared.execution).toMatchObject({ codeExecution: false, maxIterations: expect.any(Number), maxExecutionTime: expect.any(Number) });
    // Unauthenticated, it names no model (a label can carry a model server's host).
    expect(JSON.stringify(declared)).not.toContain("base_url");
    expect(declared.custom).toBeUndefined();
  });

  for (const name of Object.keys(CHECKS)) {
    it(`delivers ${name} when it declares it`, async (ctx) => {
      if (!promises(declared).includes(name)) return ctx.skip();
      await CHECKS[name]!();
    });
  }
});
