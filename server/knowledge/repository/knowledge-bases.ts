import "server-only";
import type pg from "pg";
import { getPool, withTransaction } from "../../db";
import { AppError } from "../../kernel/errors";
import type { KnowledgeBaseModel, KnowledgeDocumentModel } from "../../generated/prisma/models";
import type { KnowledgeMimeType } from "../chunking";

// Knowledge bases, documents and chunks in plain SQL: the chunk insert computes tsvectors in
// the database, which Prisma cannot express (the column is Unsupported("tsvector")).

export type KnowledgeBaseRow = KnowledgeBaseModel & { documentCount: number; chunkCount: number };

export type KnowledgeDocumentRow = Omit<KnowledgeDocumentModel, "mimeType"> & { mimeType: KnowledgeMimeType; chunkCount: number };

/** One chunk as the insert needs it: `headingText`, `title` and `body` are already segmented for search. */
export type ChunkInsert = { ord: number; content: string; headingText: string; body: string; embedding: number[] | null };

const KB_COLUMNS = `kb.id, kb.name, kb.description, kb.created_at as "createdAt",
  (select count(*) from knowledge_documents d where d.knowledge_base_id = kb.id)::int as "documentCount",
  (select count(*) from knowledge_chunks c where c.knowledge_base_id = kb.id)::int as "chunkCount"`;

const DOC_COLUMNS = `d.id, d.knowledge_base_id as "knowledgeBaseId", d.title, d.mime_type as "mimeType", d.size, d.sha256, d.created_at as "createdAt",
  (select count(*) from knowledge_chunks c where c.document_id = d.id)::int as "chunkCount"`;

/** The new knowledge base, or null when the name is taken. */
export async function insertKnowledgeBase({ name, description }: { name: string; description: string }): Promise<KnowledgeBaseRow | null> {
  const { rows } = await getPool().query<KnowledgeBaseRow>(
    `with kb as (insert into knowledge_bases (id, name, description) values (gen_random_uuid(), $1, $2) on conflict (name) do nothing returning *)
     select kb.id, kb.name, kb.description, kb.created_at as "createdAt", 0 as "documentCount", 0 as "chunkCount" from kb`,
    [name, description],
  );
  return rows[0] ?? null;
}

/** Up to `limit` knowledge bases' ids and names, oldest first. */
export async function listKnowledgeBaseNames({ limit }: { limit: number }): Promise<{ id: string; name: string }[]> {
  const { rows } = await getPool().query<{ id: string; name: string }>(`select id, name from knowledge_bases order by created_at limit $1`, [limit]);
  return rows;
}

/** Knowledge bases by name; only those in `ids` when given. */
export async function selectKnowledgeBases({ ids }: { ids?: readonly string[] }): Promise<KnowledgeBaseRow[]> {
  const { rows } = await getPool().query<KnowledgeBaseRow>(
    `select ${KB_COLUMNS} from knowledge_bases kb where $1::uuid[] is null or kb.id = any($1::uuid[]) order by kb.name, kb.id`,
    [ids ? [...ids] : null],
  );
  return rows;
}

export async function deleteKnowledgeBaseRow({ id }: { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from knowledge_bases where id = $1`, [id]);
  return (rowCount ?? 0) > 0;
}

export async function selectDocuments({ kbId }: { kbId: string }): Promise<KnowledgeDocumentRow[]> {
  const { rows } = await getPool().query<KnowledgeDocumentRow>(
    `select ${DOC_COLUMNS} from knowledge_documents d where d.knowledge_base_id = $1 order by d.created_at desc, d.id`,
    [kbId],
  );
  return rows;
}

export async function deleteDocumentRow({ kbId, id }: { kbId: string; id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from knowledge_documents where id = $1 and knowledge_base_id = $2`, [id, kbId]);
  return (rowCount ?? 0) > 0;
}

// Weights: headings (A) rank far above the document title (B), which ranks above body words
// (D). Each part is indexed twice: with 'english' (stems, so "running" finds "runs") and
// with 'simple' (every word as written, in any language, stop words included). Exact forms
// therefore match both halves and rank above stem-only matches. See retrieve-repository.ts.
const CHUNK_TSV = `setweight(to_tsvector('english', t.head) || to_tsvector('simple', t.head), 'A')
  || setweight(to_tsvector('english', $3) || to_tsvector('simple', $3), 'B')
  || to_tsvector('english', t.body) || to_tsvector('simple', t.body)`;

function vectorLiteral(v: number[] | null): string {
  return v ? `{${v.join(",")}}` : "{}";
}

async function insertChunks(client: pg.PoolClient, opts: { kbId: string; documentId: string; searchTitle: string; chunks: ChunkInsert[] }): Promise<void> {
  const c = opts.chunks;
  // One statement for the whole document: arrays unnested into rows.
  await client.query(
    `insert into knowledge_chunks (id, knowledge_base_id, document_id, ord, content, tsv, embedding)
     select gen_random_uuid(), $1, $2, t.ord, t.content, ${CHUNK_TSV}, t.embedding::float8[]
     from unnest($4::int[], $5::text[], $6::text[], $7::text[], $8::text[]) as t(ord, content, head, body, embedding)`,
    [
      opts.kbId,
      opts.documentId,
      opts.searchTitle,
      c.map((x) => x.ord),
      c.map((x) => x.content),
      c.map((x) => x.headingText),
      c.map((x) => x.body),
      c.map((x) => vectorLiteral(x.embedding)),
    ],
  );
}

/**
 * Stores a document and all its chunks in one transaction. NOT_FOUND when the knowledge
 * base is gone, CONFLICT when it already holds a document with the same bytes.
 */
export async function insertDocumentWithChunks(opts: {
  kbId: string;
  title: string;
  searchTitle: string;
  mimeType: KnowledgeMimeType;
  size: number;
  sha256: string;
  chunks: ChunkInsert[];
}): Promise<KnowledgeDocumentRow> {
  return withTransaction(async (client) => {
    // Holds the knowledge base against a concurrent delete until the chunks are in.
    const kb = await client.query(`select 1 from knowledge_bases where id = $1 for key share`, [opts.kbId]);
    if (kb.rowCount === 0) throw new AppError("NOT_FOUND", `Knowledge base ${opts.kbId} does not exist`);
    const same = await client.query<{ title: string }>(`select title from knowledge_documents where knowledge_base_id = $1 and sha256 = $2 limit 1`, [
      opts.kbId,
      opts.sha256,
    ]);
    if (same.rows[0]) {
      throw new AppError("CONFLICT", `This knowledge base already holds the same document, as "${same.rows[0].title}". Delete that one first to replace it.`);
    }
    const { rows } = await client.query<{ id: string; createdAt: Date }>(
      `insert into knowledge_documents (id, knowledge_base_id, title, mime_type, size, sha256) values (gen_random_uuid(), $1, $2, $3, $4, $5)
       returning id, created_at as "createdAt"`,
      [opts.kbId, opts.title, opts.mimeType, opts.size, opts.sha256],
    );
    const doc = rows[0]!;
    await insertChunks(client, { kbId: opts.kbId, documentId: doc.id, searchTitle: opts.searchTitle, chunks: opts.chunks });
    return {
      id: doc.id,
      knowledgeBaseId: opts.kbId,
      title: opts.title,
      mimeType: opts.mimeType,
      size: opts.size,
      sha256: opts.sha256,
      createdAt: doc.createdAt,
      chunkCount: opts.chunks.length,
    };
  });
}
