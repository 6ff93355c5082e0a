import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { chunkDocument, normalizeDocumentText, type KnowledgeMimeType } from "../chunking";
import { embedTexts, knowledgeEmbeddingModel } from "../embeddings";
import { parseInput } from "../input";
import { knowledgeBaseIdSchema } from "./knowledge-bases";
import { deleteDocumentRow, insertDocumentWithChunks, selectDocuments, selectKnowledgeBases, type KnowledgeDocumentRow } from "../repository/knowledge-bases";
import { segmentForSearch } from "../search-text";

export type KnowledgeDocument = Omit<KnowledgeDocumentRow, "sha256">;

export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
export const DOCUMENT_TOO_LARGE_MESSAGE = "Documents are limited to 5 MB. Split the file and upload the parts.";

const ACCEPTED = "Only text/plain and text/markdown documents (UTF-8) are accepted";
const MARKDOWN_EXTENSION = /\.(md|markdown|mdown|mkd)$/i;
const TEXT_EXTENSION = /\.(txt|text)$/i;

/**
 * The media type to store an upload as. Browsers send "" or application/octet-stream for
 * files whose type the OS does not know (often .md), and text/plain for Markdown on some
 * systems: the file name decides then.
 */
export function resolveDocumentMimeType({ declared, filename }: { declared: string | null; filename: string | null }): string {
  const value = declared?.trim() ?? "";
  const essenceEnd = value.includes(";") ? value.indexOf(";") : value.length;
  const essence = value.slice(0, essenceEnd).trim().toLowerCase();
  const params = value.slice(essenceEnd);
  const unknown = essence === "" || essence === "application/octet-stream";
  if (MARKDOWN_EXTENSION.test(filename ?? "") && (unknown || essence === "text/plain")) return `text/markdown${params}`;
  if (TEXT_EXTENSION.test(filename ?? "") && unknown) return `text/plain${params}`;
  return value || "application/octet-stream";
}

/** text/plain or text/markdown from a Content-Type value; 415 for anything else or a non-UTF-8 charset. */
function acceptedMimeType(value: string): KnowledgeMimeType {
  const [essence = "", ...params] = value.split(";").map((p) => p.trim().toLowerCase());
  const type = essence === "text/x-markdown" ? "text/markdown" : essence;
  if (type !== "text/plain" && type !== "text/markdown") {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `${ACCEPTED}; this file is ${essence || "of unknown type"}.`);
  }
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (charset && !["utf-8", "utf8", "us-ascii"].includes(charset)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `Documents must be UTF-8; this one is declared as ${charset}. Convert it to UTF-8 and upload it again.`);
  }
  return type;
}

function decodeUtf8(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The file is not valid UTF-8 text. ${ACCEPTED}.`);
  }
  // Text never holds NUL; binary files (images, PDFs, archives) nearly always do.
  if (text.includes("\u0000")) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The file contains NUL bytes, so it is binary, not text. ${ACCEPTED}.`);
  return text;
}

const addDocumentInput = z.object({
  kbId: knowledgeBaseIdSchema,
  title: z.string().trim().min(1, "Give the document a title").max(200, "Titles are at most 200 characters"),
  mimeType: z.string(),
  bytes: z.instanceof(Uint8Array),
});

/**
 * Adds a document: checks type, size and encoding, chunks it, embeds the chunks when an
 * embedding model is configured (before the transaction, so no connection waits on the
 * provider), then stores the document and its chunks in one transaction.
 */
export async function addDocument(raw: { kbId: string; title: string; mimeType: string; bytes: Uint8Array }): Promise<KnowledgeDocument> {
  const input = parseInput(addDocumentInput, raw);
  const mimeType = acceptedMimeType(input.mimeType);
  if (input.bytes.byteLength > MAX_DOCUMENT_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", DOCUMENT_TOO_LARGE_MESSAGE);
  if (input.bytes.byteLength === 0) throw new AppError("BAD_REQUEST", "The document is empty");
  const text = normalizeDocumentText(decodeUtf8(input.bytes));
  const chunks = chunkDocument({ text, mimeType });
  if (chunks.length === 0) throw new AppError("BAD_REQUEST", "The document has no text to index");
  const [kb] = await selectKnowledgeBases({ ids: [input.kbId] });
  if (!kb) throw new AppError("NOT_FOUND", `Knowledge base ${input.kbId} does not exist`);

  const model = knowledgeEmbeddingModel();
  const vectors = model ? await embedTexts(model, chunks.map((c) => `${input.title}\n\n${c.content}`)) : null;
  const { sha256: _hash, ...doc } = await insertDocumentWithChunks({
    kbId: input.kbId,
    title: input.title,
    searchTitle: segmentForSearch(input.title),
    mimeType,
    size: input.bytes.byteLength,
    sha256: createHash("sha256").update(input.bytes).digest("hex"),
    chunks: chunks.map((c, i) => ({
      ord: c.ord,
      content: c.content,
      headingText: segmentForSearch(c.headingText),
      body: segmentForSearch(c.body),
      embedding: vectors?.[i] ?? null,
    })),
  });
  return doc;
}

/** The knowledge base's documents with their chunk counts, newest first. */
export async function listDocuments(raw: { kbId: string }): Promise<KnowledgeDocument[]> {
  const { kbId } = parseInput(z.object({ kbId: knowledgeBaseIdSchema }), raw);
  const [docs, [kb]] = await Promise.all([selectDocuments({ kbId }), selectKnowledgeBases({ ids: [kbId] })]);
  if (!kb) throw new AppError("NOT_FOUND", `Knowledge base ${kbId} does not exist`);
  return docs.map(({ sha256: _hash, ...doc }) => doc);
}

export async function deleteDocument(raw: { kbId: string; id: string }): Promise<{ id: string }> {
  const { kbId, id } = parseInput(z.object({ kbId: knowledgeBaseIdSchema, id: z.string().uuid("Document ids are UUIDs") }), raw);
  if (!(await deleteDocumentRow({ kbId, id }))) throw new AppError("NOT_FOUND", `Document ${id} is not in knowledge base ${kbId}`);
  return { id };
}
