import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { createBinding, createEndpoint, endRun, startRunSession, waitForAuditRows, type RunSessionFixture, type TestEndpoint } from "./test-fixtures";

// models/rerank's model paths over real HTTP, as a runner calls them: a host with an embedding
// model (LLM_EMBEDDING_MODEL) ranks by the similarity of the fake LLM's embeddings, a host with a
// rerank model (LLM_RERANK_MODEL) by the fake LLM's rerank endpoint. Neither needs a chat model id
// from the runner; one that names a model the host does not rank with is told which it has.

const EMBEDDING_MODEL = "fake-embedding";
const RERANK_MODEL = "fake-rerank";

let byEmbeddings: ExtraServer;
let byRerankModel: ExtraServer;
let endpoint: TestEndpoint;
let run: RunSessionFixture;

beforeAll(async () => {
  [byEmbeddings, byRerankModel] = await Promise.all([startExtraServer({ LLM_EMBEDDING_MODEL: EMBEDDING_MODEL }), startExtraServer({ LLM_RERANK_MODEL: RERANK_MODEL })]);
  const user = await createTestUser();
  endpoint = await createEndpoint();
  run = await startRunSession({ userId: user.id, endpoint, bindingId: await createBinding({ endpoint, userId: user.id }) });
}, 120_000);
afterAll(async () => {
  if (run) await endRun(run.id);
  byEmbeddings?.child.kill("SIGTERM");
  byRerankModel?.child.kill("SIGTERM");
});

type Answer = { ok: boolean; data?: { results: { index: number; score: number }[]; ranker: string; model_id: string | null }; error?: { code: string; message: string; details: Record<string, unknown> } };

async function rerank(host: ExtraServer, params: Record<string, unknown>): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${host.url}/api/v1/runner-api/models/rerank`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${endpoint.secret}` },
    body: JSON.stringify({ run_id: run.id, ...params }),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

/** The requests the fake LLM got whose text contains `word`. */
async function llmCalls(word: string): Promise<{ body: Record<string, unknown> }[]> {
  return (await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(word)}`)).json() as Promise<{ body: Record<string, unknown> }[]>;
}

const DOCUMENTS = ["a recipe for sourdough bread", "the quarterly zeppelin budget review", "zeppelin flights over the lake", "notes from the offsite"];

describe("models/rerank with the host's embedding model", () => {
  it("ranks by the similarity of the embedding model's vectors, best first, without a chat model id", async () => {
    const { status, body } = await rerank(byEmbeddings, { query: "zeppelin budget", documents: DOCUMENTS, top_k: 3 });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ ranker: "embeddings", model_id: EMBEDDING_MODEL });
    // Two of the query's words, then one, then none (equal scores keep the documents' order).
    expect(body.data!.results.map((r) => r.index)).toEqual([1, 2, 0]);
    expect(body.data!.results[0]!.score).toBeGreaterThan(body.data!.results[1]!.score);
    expect(body.data!.results[1]!.score).toBeGreaterThan(body.data!.results[2]!.score);
    // The vectors came from the embedding model, the query and every document in one request.
    const [call] = await llmCalls("zeppelin budget");
    expect(call!.body).toMatchObject({ model: EMBEDDING_MODEL, input: ["zeppelin budget", ...DOCUMENTS] });
    // The call is audited like every host API call.
    const audit = await waitForAuditRows(run.id, { count: 1 });
    expect(audit.at(-1)).toMatchObject({ action: "models/rerank", result: "ok" });
  });

  it("accepts the embedding model's id, and refuses a chat model's id with 400 naming the model it ranks with", async () => {
    expect((await rerank(byEmbeddings, { model_id: EMBEDDING_MODEL, query: "sourdough", documents: DOCUMENTS })).body.data).toMatchObject({
      ranker: "embeddings",
      results: [{ index: 0 }, expect.anything(), expect.anything(), expect.anything()],
    });
    const chat = await rerank(byEmbeddings, { model_id: inject("llmModel"), query: "sourdough", documents: DOCUMENTS });
    expect(chat.status).toBe(400);
    expect(chat.body.error).toMatchObject({ code: "invalid_argument", details: { model_id: inject("llmModel"), ranker: "embeddings", ranking_model_id: EMBEDDING_MODEL } });
    expect(chat.body.error!.message).toContain(`this host ranks with ${EMBEDDING_MODEL} (its embedding model)`);
  });

  it("answers 400 naming the parameter for bad input", async () => {
    const empty = await rerank(byEmbeddings, { query: "", documents: DOCUMENTS });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "query" }] } });
    const none = await rerank(byEmbeddings, { query: "q", documents: [] });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "documents" }] } });
  });
});

describe("models/rerank with the host's rerank model", () => {
  it("ranks with the rerank endpoint's scores, best first, and names the rerank model", async () => {
    const { status, body } = await rerank(byRerankModel, { query: "lake zeppelin", documents: DOCUMENTS, top_k: 2 });
    expect(status).toBe(200);
    expect(body.data).toEqual({ ranker: "rerank_model", model_id: RERANK_MODEL, results: [{ index: 2, score: 1 }, { index: 1, score: 0.5 }] });
    const [call] = await llmCalls("lake zeppelin");
    expect(call!.body).toMatchObject({ model: RERANK_MODEL, query: "lake zeppelin", documents: DOCUMENTS, top_n: 2 });
    const chat = await rerank(byRerankModel, { model_id: inject("llmModel"), query: "q", documents: ["a"] });
    expect(chat.status).toBe(400);
    expect(chat.body.error!.message).toContain(`this host ranks with ${RERANK_MODEL} (its rerank model)`);
  });
});
