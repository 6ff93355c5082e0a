import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getPool } from "@/server/db";
import { AppError } from "@/server/kernel/errors";
import { addDocument, deleteDocument, listDocuments } from "./service/documents";
import { createKnowledgeBase, type KnowledgeBase } from "./service/knowledge-bases";
import { retrieveKnowledge } from "./service/retrieve";

// Knowledge retrieval with an embedding model configured: a local OpenAI-compatible
// /embeddings server, reached over real HTTP through the AI SDK, answers "concept" vectors
// (one dimension per concept, so "automobile" and "cars" point the same way with no word in
// common). The environment is set before any module reads it.
const embeddings = await vi.hoisted(async () => {
  const http = await import("node:http");
  const concepts = [
    ["car", "cars", "automobile", "automobiles", "vehicle", "vehicles", "garage"],
    ["banana", "bananas", "fruit", "apple", "apples"],
    ["umbrella", "storm", "rain", "weather", "forecast"],
  ];
  const vector = (text: string) => {
    const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
    return [...concepts.map((c) => words.filter((w) => c.includes(w)).length), 0.05];
  };
  const state = { batches: [] as number[], fail: false };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const { input } = JSON.parse(body) as { input: string[] };
      state.batches.push(input.length);
      if (state.fail || req.url !== "/v1/embeddings") {
        res.writeHead(state.fail ? 500 : 404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "down" } }));
        return;
      }
      const data = input.map((text, index) => ({ object: "embedding", index, embedding: vector(text) }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model: "concepts", usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  process.env.LLM_BASE_URL = `http://127.0.0.1:${port}/v1`;
  process.env.LLM_API_KEY = "test-key";
  process.env.LLM_EMBEDDING_MODEL = "concepts";
  return { state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
});

const utf8 = (text: string) => new TextEncoder().encode(text);
let kb: KnowledgeBase;
const ids = { parking: "", cafeteria: "" };

beforeAll(async () => {
  kb = await createKnowledgeBase({ name: `embedded-${randomUUID()}` });
  ids.parking = (await addDocument({ kbId: kb.id, title: "parking.txt", mimeType: "text/plain", bytes: utf8("Cars must be parked in the underground garage, level two.") })).id;
  ids.cafeteria = (await addDocument({ kbId: kb.id, title: "cafeteria.txt", mimeType: "text/plain", bytes: utf8("The cafeteria sells bananas and apples every morning.") })).id;
  await addDocument({ kbId: kb.id, title: "office.txt", mimeType: "text/plain", bytes: utf8("Bring an umbrella when a storm is forecast.") });
});

afterAll(() => embeddings.close());

describe("retrieval with embeddings", () => {
  it("stores unit-length vectors for every chunk", async () => {
    const { rows } = await getPool().query<{ dims: number; norm: number }>(
      `select cardinality(embedding) as dims, (select sqrt(sum(x * x)) from unnest(embedding) x) as norm from knowledge_chunks where knowledge_base_id = $1`,
      [kb.id],
    );
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.dims).toBe(4);
      expect(r.norm).toBeCloseTo(1, 9);
    }
  });

  it("finds a paraphrase that shares no word with the query", async () => {
    const { entries } = await retrieveKnowledge({ kbId: kb.id, query: "automobile", topK: 3 });
    expect(entries).toHaveLength(3);
    expect(entries[0]!.document_id).toBe(ids.parking);
    expect(entries[0]!.metadata.match).toBe("hybrid");
    expect(entries[0]!.score).toBeGreaterThan(entries[1]!.score);
  });

  it("lets shared words decide between equally similar chunks, and keeps filters", async () => {
    // Both chunks are one "fruit" each, so their vectors are the same; only the words differ.
    const market = await createKnowledgeBase({ name: `market-${randomUUID()}` });
    const kiosk = await addDocument({ kbId: market.id, title: "kiosk.txt", mimeType: "text/plain", bytes: utf8("Apples are on sale at the kiosk.") });
    const stall = await addDocument({ kbId: market.id, title: "stall.txt", mimeType: "text/plain", bytes: utf8("Bananas are on sale at the stall.") });
    expect((await retrieveKnowledge({ kbId: market.id, query: "fruit kiosk" })).entries.map((e) => e.document_id)).toEqual([kiosk.id, stall.id]);
    expect((await retrieveKnowledge({ kbId: market.id, query: "fruit stall" })).entries.map((e) => e.document_id)).toEqual([stall.id, kiosk.id]);

    const filtered = await retrieveKnowledge({ kbId: kb.id, query: "automobile", filters: { document_ids: [ids.cafeteria] } });
    expect(filtered.entries.map((e) => e.document_id)).toEqual([ids.cafeteria]);
  });

  it("ranks chunks stored without vectors by their words alone", async () => {
    // As for documents uploaded before LLM_EMBEDDING_MODEL was set.
    const legacy = await addDocument({ kbId: kb.id, title: "legacy.txt", mimeType: "text/plain", bytes: utf8("The vehicle pool is managed by facilities.") });
    await getPool().query(`update knowledge_chunks set embedding = '{}' where document_id = $1`, [legacy.id]);
    const found = await retrieveKnowledge({ kbId: kb.id, query: "facilities", topK: 10 });
    expect(found.entries.map((e) => e.document_id)).toContain(legacy.id);
    const paraphrase = await retrieveKnowledge({ kbId: kb.id, query: "automobile", topK: 10 });
    expect(paraphrase.entries.map((e) => e.document_id)).not.toContain(legacy.id);
    await deleteDocument({ kbId: kb.id, id: legacy.id });
  });

  it("embeds large documents in batches", async () => {
    embeddings.state.batches = [];
    const text = Array.from({ length: 200 }, (_, i) => `Section ${i} talks about cars. ${"Some filler words here. ".repeat(45)}`).join("\n\n");
    const doc = await addDocument({ kbId: kb.id, title: "long.txt", mimeType: "text/plain", bytes: utf8(text) });
    expect(doc.chunkCount).toBeGreaterThan(128);
    expect(embeddings.state.batches.length).toBeGreaterThan(1);
    expect(Math.max(...embeddings.state.batches)).toBeLessThanOrEqual(128);
    expect(embeddings.state.batches.reduce((a, b) => a + b, 0)).toBe(doc.chunkCount);
  });

  it("refuses a document when the provider fails, and falls back to full text for queries", async () => {
    embeddings.state.fail = true;
    try {
      const before = (await listDocuments({ kbId: kb.id })).length;
      const err = await addDocument({ kbId: kb.id, title: "new.txt", mimeType: "text/plain", bytes: utf8("A new automobile policy.") }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("UPSTREAM_ERROR");
      expect((await listDocuments({ kbId: kb.id })).length).toBe(before);

      const { entries } = await retrieveKnowledge({ kbId: kb.id, query: "bananas" });
      expect(entries[0]!.document_id).toBe(ids.cafeteria);
      expect(entries[0]!.metadata.match).toBe("strict");
    } finally {
      embeddings.state.fail = false;
    }
  });
});
