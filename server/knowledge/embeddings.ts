import "server-only";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embed, embedMany, type EmbeddingModel } from "ai";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { logger } from "../logger";

// Optional embeddings for knowledge chunks. Configured only by LLM_EMBEDDING_MODEL (an
// explicit opt-in: embeddings cost money and change ranking), served by the same provider
// as the chat model: the OpenAI-compatible server on LLM_BASE_URL, else OpenAI.
// Vectors are stored unit-length, so cosine similarity is a plain dot product in SQL.

// Small batches keep each request under providers' per-request token limits (a chunk is
// up to ~300 tokens); two in flight keep a 5 MB upload from taking minutes.
const BATCH_SIZE = 128;
const PARALLEL_BATCHES = 2;
const INDEX_TIMEOUT_MS = 60_000;
const QUERY_TIMEOUT_MS = 10_000;

let warnedUnserved = false;

export function knowledgeEmbeddingModel(): EmbeddingModel | null {
  const id = env.LLM_EMBEDDING_MODEL;
  if (!id) return null;
  if (env.LLM_BASE_URL) return createOpenAICompatible({ name: "llm", baseURL: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY }).embeddingModel(id);
  if (env.OPENAI_API_KEY) return createOpenAI({ apiKey: env.OPENAI_API_KEY }).embeddingModel(id);
  if (!warnedUnserved) {
    warnedUnserved = true;
    logger.warn("LLM_EMBEDDING_MODEL is set but neither LLM_BASE_URL nor OPENAI_API_KEY is: knowledge retrieval stays full-text only");
  }
  return null;
}

/** The vector scaled to length 1 (all zeros stays all zeros). */
export function toUnitVector(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm > 0 && Number.isFinite(norm) ? vector.map((x) => x / norm) : vector.map(() => 0);
}

function checked(vectors: number[][], count: number): number[][] {
  const dims = vectors[0]?.length ?? 0;
  if (vectors.length !== count || dims === 0 || vectors.some((v) => v.length !== dims || !v.every(Number.isFinite))) {
    throw new Error(`The embedding model answered ${vectors.length} vectors for ${count} texts, or vectors of mixed or zero length`);
  }
  return vectors.map(toUnitVector);
}

/**
 * Unit vectors for the texts, in order. A provider failure is an UPSTREAM_ERROR: the caller
 * should not store a document whose chunks would silently lack vectors.
 */
export async function embedTexts(model: EmbeddingModel, values: string[]): Promise<number[][]> {
  const batches: string[][] = [];
  for (let i = 0; i < values.length; i += BATCH_SIZE) batches.push(values.slice(i, i + BATCH_SIZE));
  const results: number[][][] = new Array(batches.length);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const at = next++;
      const { embeddings } = await embedMany({ model, values: batches[at]!, abortSignal: AbortSignal.timeout(INDEX_TIMEOUT_MS) });
      results[at] = checked(embeddings, batches[at]!.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL_BATCHES, batches.length) }, worker));
  } catch (err) {
    logger.error({ err }, "knowledge embedding failed");
    throw new AppError("UPSTREAM_ERROR", "The embedding model (LLM_EMBEDDING_MODEL) failed to embed the document. Try again, or check the model server.");
  }
  return results.flat();
}

/**
 * The query's unit vector, or null when the provider fails: retrieval then stays full-text.
 * No retries: a runner waiting on retrieval is better served by text ranking now.
 */
export async function embedQuery(model: EmbeddingModel, query: string): Promise<number[] | null> {
  try {
    const { embedding } = await embed({ model, value: query, maxRetries: 0, abortSignal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
    return checked([embedding], 1)[0]!;
  } catch (err) {
    logger.warn({ err }, "knowledge query embedding failed; ranking by full text only");
    return null;
  }
}
