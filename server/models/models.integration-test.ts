import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startExtraServer, type ExtraServer, stopExtraServer } from "@/test/extra-server";
import { bearer, createTestUser } from "@/test/helpers";
import { waitFor } from "@/test/wait";

// Several models over real HTTP: a second production server configured with LLM_MODELS (one
// more model on the default server, and one on a server of its own, both the test's fake
// OpenAI-compatible LLM, which answers [[show:model]] with the model id it was asked for).

let server: ExtraServer;
let alice: Awaited<ReturnType<typeof createTestUser>>;
const base = inject("llmModel");

beforeAll(async () => {
  alice = await createTestUser();
  server = await startExtraServer({
    LLM_MODELS: JSON.stringify([
      { id: `${base}-large`, label: "Large" },
      { id: "elsewhere-model", base_url: inject("llmBaseUrl"), api_key: inject("llmApiKey") },
    ]),
  });
}, 90_000);

afterAll(async () => {
  await stopExtraServer(server);
});

const get = (path: string) => fetch(`${server.url}${path}`, { headers: bearer(alice.apiKey) });
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { ...bearer(alice.apiKey), "content-type": "application/json" }, body: JSON.stringify(body) });

async function waitForRun(runId: string): Promise<Record<string, unknown>> {
  let run: Record<string, unknown> = {};
  await waitFor(async () => {
    run = (await (await get(`/api/v1/agent/runs/${encodeURIComponent(runId)}`)).json()) as Record<string, unknown>;
    return ["completed", "failed", "cancelled"].includes(run.status as string);
  }, 20_000);
  return run;
}

const answerOf = (response: { output: { role?: string; content: { type: string; text?: string }[] }[] }) =>
  response.output
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.content.map((c) => c.text ?? ""))
    .join("");

describe("configured models", () => {
  it("lists them OpenAI-style, default first", async () => {
    const res = await get("/api/v1/models");
    expect(res.status).toBe(200);
    const list = (await res.json()) as { object: string; data: Record<string, unknown>[] };
    expect(list.object).toBe("list");
    expect(list.data.map((m) => [m.id, m.object, m.owned_by, m.default])).toEqual([
      [base, "model", "openai-compatible", true],
      [`${base}-large`, "model", "openai-compatible", false],
      ["elsewhere-model", "model", "openai-compatible", false],
    ]);
    expect(list.data[1]).toMatchObject({ label: "Large", created: expect.any(Number) });
    // Where a model lives and its key stay on the server.
    expect(JSON.stringify(list)).not.toContain(inject("llmApiKey"));
    expect((await fetch(`${server.url}/api/v1/models`)).status).toBe(401);
  });

  it("runs the model the Agent API request picks, records it, and passes the sampling parameters", async () => {
    for (const model of [`${base}-large`, "elsewhere-model"]) {
      const res = await post("/api/v1/agent/process", { stream: false, model, temperature: 0.25, seed: 7, input: [{ role: "user", content: [{ type: "text", text: "[[show:model]]" }] }] });
      expect(res.status).toBe(200);
      const response = (await res.json()) as { id: string; output: { role?: string; content: { type: string; text?: string }[] }[] };
      expect(JSON.parse(answerOf(response))).toEqual({ model, temperature: 0.25, seed: 7 });
      expect(await waitForRun(response.id)).toMatchObject({ model, status: "completed" });
    }
    const plain = (await (await post("/api/v1/agent/process", { stream: false, input: [{ role: "user", content: [{ type: "text", text: "[[show:model]]" }] }] })).json()) as {
      id: string;
      output: { role?: string; content: { type: string; text?: string }[] }[];
    };
    expect(JSON.parse(answerOf(plain))).toMatchObject({ model: base });
  });

  it("takes AG-UI's forwardedProps.model, and refuses an unknown model with 400 listing what is available", async () => {
    const runId = `run-${randomUUID()}`;
    const accepted = await post("/api/v1/agent/runs", {
      threadId: randomUUID(),
      runId,
      messages: [{ id: randomUUID(), role: "user", content: "[[show:model]]" }],
      tools: [],
      context: [],
      forwardedProps: { model: "elsewhere-model" },
    });
    expect(accepted.status).toBe(202);
    expect(await waitForRun(runId)).toMatchObject({ model: "elsewhere-model", status: "completed" });

    const refusals: [string, unknown, string][] = [
      ["/api/v1/agent/process", { model: "gpt-4-vision", input: [{ role: "user", content: [{ type: "text", text: "x" }] }] }, "model"],
      [
        "/api/v1/agent/runs",
        { threadId: randomUUID(), runId: `run-${randomUUID()}`, messages: [{ id: randomUUID(), role: "user", content: "x" }], tools: [], context: [], forwardedProps: { model: "nope" } },
        "forwardedProps.model",
      ],
    ];
    for (const [path, body, field] of refusals) {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { message: string; details: { field: string } } };
      expect(error.details.field).toBe(field);
      expect(error.message).toContain(`available: ${base}, ${base}-large, elsewhere-model`);
    }
  });
});
