import "server-only";
import { AISDKError, APICallError, cosineSimilarity, embedMany, type EmbeddingModel } from "ai";
import { env } from "../../../env";
import { knowledgeEmbeddingModel } from "../../../knowledge/embeddings";
import { looseQueryText, segmentForSearch } from "../../../knowledge/search-text";
import { logger } from "../../../logger";
import { UPSTREAM_ERROR_STATUS, type HostApiParsedRequest } from "../../../protocols/runner/host-api";
import { rankTextsFullText } from "../../repository/runners";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// models/rerank, for every host: the OpenAI-compatible server's rerank endpoint when the operator
// names a rerank model (LLM_RERANK_MODEL: vLLM, Infinity, Jina and Cohere-style servers answer
// POST {base}/rerank with {results: [{index, relevance_score}]}); otherwise cosine similarity of
// embeddings when knowledge embeddings are configured (LLM_EMBEDDING_MODEL); otherwise the
// full-text ranker the knowledge bases use. The answer says which ranked it (`ranker`, and the
// model's id), since the scores of the three are not on one scale. The ranking model is the
// host's: a runner need not name one, and one that names another is told which the host has.

type RerankRequest = HostApiParsedRequest<"models/rerank">;
type Ranked = { index: number; score: number }[];
const RERANK_TIMEOUT_MS = 30_000;

async function rerankEndpoint(req: RerankRequest, model: string, signal: AbortSignal): Promise<Ranked> {
  const res = await fetch(`${env.LLM_BASE_URL!.replace(/\/$/, "")}/rerank`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(env.LLM_API_KEY ? { authorization: `Bearer ${env.LLM_API_KEY}` } : {}) },
    body: JSON.stringify({ model, query: req.query, documents: req.documents, top_n: req.top_k ?? req.documents.length }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(RERANK_TIMEOUT_MS)]),
  });
  if (!res.ok) {
    logger.warn({ status: res.status }, "rerank call failed");
    throw new HostApiFailure("runtime_error", `The rerank model call failed (HTTP ${res.status})`, { status: UPSTREAM_ERROR_STATUS, retryable: true, details: { provider_status: res.status } });
  }
  const body = (await res.json()) as { results?: { index?: unknown; relevance_score?: unknown; score?: unknown }[] };
  return (body.results ?? []).flatMap((r) => {
    const score = typeof r.relevance_score === "number" ? r.relevance_score : r.score;
    return typeof r.index === "number" && typeof score === "number" && r.index >= 0 && r.index < req.documents.length ? [{ index: r.index, score }] : [];
  });
}

async function rerankByEmbeddings(req: RerankRequest, model: EmbeddingModel, signal: AbortSignal): Promise<Ranked> {
  try {
    const { embeddings } = await embedMany({ model, values: [req.query, ...req.documents], abortSignal: AbortSignal.any([signal, AbortSignal.timeout(RERANK_TIMEOUT_MS)]) });
    const [query, ...documents] = embeddings;
    return documents.map((vector, index) => ({ index, score: cosineSimilarity(query!, vector) }));
  } catch (err) {
    if (signal.aborted || !AISDKError.isInstance(err)) throw err;
    const status = APICallError.isInstance(err) ? err.statusCode : undefined;
    logger.warn({ status, error: err.name }, "rerank embeddings call failed");
    throw new HostApiFailure("runtime_error", `The embedding model call failed${status ? ` (HTTP ${status})` : ""}`, {
      status: UPSTREAM_ERROR_STATUS,
      retryable: true,
      details: status ? { provider_status: status } : {},
    });
  }
}

async function rerankFullText(req: RerankRequest): Promise<Ranked> {
  const query = looseQueryText(req.query);
  if (!query) return req.documents.map((_, index) => ({ index, score: 0 }));
  const scores = await rankTextsFullText({ query, texts: req.documents.map(segmentForSearch) });
  return scores.map((score, index) => ({ index, score }));
}

type Ranker = { ranker: "rerank_model" | "embeddings" | "full_text"; modelId: string | null; rank: (req: RerankRequest, signal: AbortSignal) => Promise<Ranked> };

/** What this host ranks with: its rerank model, else its embedding model, else full text. */
function hostRanker(): Ranker {
  const rerankModel = env.LLM_RERANK_MODEL;
  if (rerankModel && env.LLM_BASE_URL) return { ranker: "rerank_model", modelId: rerankModel, rank: (req, signal) => rerankEndpoint(req, rerankModel, signal) };
  const embeddings = knowledgeEmbeddingModel();
  if (embeddings && env.LLM_EMBEDDING_MODEL) return { ranker: "embeddings", modelId: env.LLM_EMBEDDING_MODEL, rank: (req, signal) => rerankByEmbeddings(req, embeddings, signal) };
  return { ranker: "full_text", modelId: null, rank: rerankFullText };
}

export const rerankModel: JsonHandler<"models/rerank"> = async ({ params, signal }) => {
  const host = hostRanker();
  if (params.model_id !== undefined && params.model_id !== host.modelId) {
    throw new HostApiFailure(
      "invalid_argument",
      host.modelId
        ? `model_id: this host ranks with ${host.modelId} (${host.ranker === "rerank_model" ? "its rerank model" : "its embedding model"}), not ${params.model_id}; omit model_id to rank with it`
        : `model_id: this host has no ranking model (it ranks by full-text relevance), so ${params.model_id} cannot rank; omit model_id`,
      { details: { model_id: params.model_id, ranker: host.ranker, ranking_model_id: host.modelId } },
    );
  }
  const ranked = await host.rank(params, signal);
  // Best first; equal scores keep the documents' order.
  const results = ranked.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, params.top_k ?? params.documents.length);
  return { results, ranker: host.ranker, model_id: host.modelId };
};
