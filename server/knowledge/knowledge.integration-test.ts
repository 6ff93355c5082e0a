import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { AppError } from "@/server/kernel/errors";
import { pngBytes } from "@/test/images";
import { addDocument, deleteDocument, listDocuments, MAX_DOCUMENT_BYTES } from "./service/documents";
import { createKnowledgeBase, deleteKnowledgeBase, getKnowledgeBase, listKnowledgeBases, type KnowledgeBase } from "./service/knowledge-bases";
import { retrieveKnowledge } from "./service/retrieve";

// The knowledge service on a real PostgreSQL, full-text only (no LLM_EMBEDDING_MODEL here):
// documents in, ranked chunks out, and every refusal with its code.

const FILLER = "Read this part of the handbook carefully before you change anything in production.";
const section = (heading: string, facts: string) => `## ${heading}\n\n${facts} ${`${FILLER} `.repeat(5).trim()}`;
const utf8 = (text: string) => new TextEncoder().encode(text);

const DEPLOY = [
  "# Operations handbook",
  section("Docker", "Start the stack with docker compose up. The web container listens on port 3000 and needs DATABASE_URL."),
  section("Kubernetes", "Install the helm chart into its own namespace. To configure the ingress, set the hostname in values.yaml; pods restart on change."),
  section("Backups", "Backups run nightly with pg_dump and are kept for 30 days. To restore a backup, stop the app and load the dump with pg_restore."),
].join("\n\n");

const BILLING = [
  "# Billing",
  section("Invoices", "Invoices are issued monthly as PDF files with VAT shown per line."),
  section("Refunds", "A refund is possible within 14 days of purchase and is credited to the original payment method."),
  section("Payment methods", "We accept a credit card or a SEPA direct debit; bank transfers need approval."),
].join("\n\n");

const FAQ = [
  `To reset a forgotten password, ask an admin to issue a new one. ${FILLER}`,
  `Two-factor authentication uses any TOTP app. ${FILLER}`,
  "知识库的检索功能可以按文档过滤，结果按相关性排序。",
].join("\n\n");

let kb: KnowledgeBase;
let other: KnowledgeBase;
const docs = { deploy: "", billing: "", faq: "" };

async function appError(work: Promise<unknown>): Promise<AppError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

beforeAll(async () => {
  kb = await createKnowledgeBase({ name: `handbook-${randomUUID()}`, description: "ops and billing" });
  other = await createKnowledgeBase({ name: `other-${randomUUID()}` });
  docs.deploy = (await addDocument({ kbId: kb.id, title: "deploy.md", mimeType: "text/markdown", bytes: utf8(DEPLOY) })).id;
  docs.billing = (await addDocument({ kbId: kb.id, title: "billing.md", mimeType: "text/markdown; charset=utf-8", bytes: utf8(BILLING) })).id;
  docs.faq = (await addDocument({ kbId: kb.id, title: "faq.txt", mimeType: "text/plain", bytes: utf8(FAQ) })).id;
  // The same facts in another knowledge base must never leak into the first one's results.
  await addDocument({ kbId: other.id, title: "elsewhere.md", mimeType: "text/markdown", bytes: utf8(`# Elsewhere\n\n${DEPLOY}`) });
});

describe("retrieveKnowledge ranking", () => {
  it.each([
    ["how do I restore a backup", "deploy.md", ["Operations handbook", "Backups"]],
    ["configuring the ingress", "deploy.md", ["Operations handbook", "Kubernetes"]],
    ["refund", "billing.md", ["Billing", "Refunds"]],
    ['"credit card"', "billing.md", ["Billing", "Payment methods"]],
    ["Invoices", "billing.md", ["Billing", "Invoices"]],
    ["reset password", "faq.txt", []],
    ["检索", "faq.txt", []],
  ])("%s → %s %j", async (query, title, headings) => {
    const { entries } = await retrieveKnowledge({ kbId: kb.id, query });
    expect(entries.length).toBeGreaterThan(0);
    const [best] = entries;
    expect(best!.document_title).toBe(title);
    expect(best!.metadata.headings).toEqual(headings);
    expect(best!.metadata.match).toBe("strict");
    if (headings.length) expect(best!.content.startsWith(`# ${headings[0]}\n## ${headings[1]}\n\n`)).toBe(true);
    for (const e of entries) expect([docs.deploy, docs.billing, docs.faq]).toContain(e.document_id);
    const scores = entries.map((e) => e.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("falls back to any term when no chunk has them all", async () => {
    const { entries } = await retrieveKnowledge({ kbId: kb.id, query: "refund zebra" });
    expect(entries[0]!.metadata.match).toBe("loose");
    expect(entries[0]!.metadata.headings).toEqual(["Billing", "Refunds"]);
    expect((await retrieveKnowledge({ kbId: kb.id, query: "zebra quokka" })).entries).toEqual([]);
  });

  it("filters by document and never crosses knowledge bases", async () => {
    const only = (ids: string[]) => retrieveKnowledge({ kbId: kb.id, query: "restore a backup", filters: { document_ids: ids } });
    expect((await only([docs.billing])).entries).toEqual([]);
    expect((await only([docs.deploy])).entries.map((e) => e.document_id)).toContain(docs.deploy);
    const handbook = await retrieveKnowledge({ kbId: kb.id, query: "handbook", topK: 50 });
    expect(new Set(handbook.entries.map((e) => e.document_id))).toEqual(new Set([docs.deploy, docs.billing, docs.faq]));
    const elsewhere = await retrieveKnowledge({ kbId: other.id, query: "restore a backup" });
    expect(elsewhere.entries[0]!.document_title).toBe("elsewhere.md");
  });

  it("returns topK entries, 5 by default", async () => {
    const all = (await retrieveKnowledge({ kbId: kb.id, query: "handbook", topK: 50 })).entries;
    expect(all.length).toBeGreaterThan(5);
    expect((await retrieveKnowledge({ kbId: kb.id, query: "handbook" })).entries).toHaveLength(5);
    expect((await retrieveKnowledge({ kbId: kb.id, query: "handbook", topK: 1 })).entries).toEqual([all[0]]);
  });

  it.each([
    [{ query: "" }, "query must not be empty"],
    [{ query: "   " }, "query must not be empty"],
    [{ query: "x".repeat(2001) }, "at most 2000"],
    [{ query: "backup", topK: 0 }, "between 1 and 50"],
    [{ query: "backup", topK: 51 }, "between 1 and 50"],
    [{ query: "backup", topK: 2.5 }, "whole number"],
    [{ query: "backup", filters: { document_ids: ["not-a-uuid"] } }, "document_ids"],
    [{ query: "backup", filters: { tags: ["x"] } }, "tags"],
  ])("refuses %j with BAD_REQUEST", async (input, message) => {
    const err = await appError(retrieveKnowledge({ kbId: kb.id, ...(input as { query: string }) }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain(message);
  });

  it("answers NOT_FOUND for a knowledge base that does not exist, BAD_REQUEST for a malformed id", async () => {
    expect((await appError(retrieveKnowledge({ kbId: randomUUID(), query: "backup" }))).code).toBe("NOT_FOUND");
    expect((await appError(retrieveKnowledge({ kbId: "kb-1", query: "backup" }))).code).toBe("BAD_REQUEST");
  });
});

describe("addDocument", () => {
  const add = (mimeType: string, bytes: Uint8Array, title = "upload") => addDocument({ kbId: kb.id, title, mimeType, bytes });
  const documentCount = async () => (await listDocuments({ kbId: kb.id })).length;

  it.each([
    ["an image type", "image/png", pngBytes(), 415, "Only text/plain and text/markdown"],
    ["PNG bytes declared as text", "text/plain", pngBytes(), 415, "not valid UTF-8"],
    ["Latin-1 bytes", "text/plain", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]), 415, "not valid UTF-8"],
    ["NUL bytes", "text/plain", utf8("abc\u0000def"), 415, "binary"],
    ["a non-UTF-8 charset", "text/plain; charset=iso-8859-1", utf8("hello"), 415, "iso-8859-1"],
    ["an empty file", "text/plain", new Uint8Array(0), 400, "empty"],
    ["blank text", "text/markdown", utf8("\n  \n\t"), 400, "no text"],
    ["more than 5 MB", "text/plain", new Uint8Array(MAX_DOCUMENT_BYTES + 1).fill(0x61), 413, "5 MB"],
  ])("refuses %s, storing nothing", async (_label, mimeType, bytes, status, message) => {
    const before = await documentCount();
    const err = await appError(add(mimeType, bytes));
    expect(err.status).toBe(status);
    expect(err.message).toContain(message);
    expect(await documentCount()).toBe(before);
  });

  it("refuses the same bytes twice in one knowledge base, and an unknown knowledge base", async () => {
    const err = await appError(add("text/markdown", utf8(DEPLOY), "deploy again.md"));
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toContain('"deploy.md"');
    expect((await appError(addDocument({ kbId: randomUUID(), title: "x", mimeType: "text/plain", bytes: utf8("hello") }))).code).toBe("NOT_FOUND");
    expect((await appError(add("text/plain", utf8("hello"), "  "))).message).toContain("title");
  });

  it("stores every chunk in order with a search vector, and lists documents with chunk counts", async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} about topic${i}. ${FILLER}`).join("\n\n");
    const doc = await add("text/plain", utf8(long), "long.txt");
    expect(doc.chunkCount).toBeGreaterThan(3);
    const { rows } = await getPool().query<{ ord: number; has_tsv: boolean; embedding: number[] }>(
      `select ord, tsv is not null as has_tsv, embedding from knowledge_chunks where document_id = $1 order by ord`,
      [doc.id],
    );
    expect(rows.map((r) => r.ord)).toEqual(Array.from({ length: doc.chunkCount }, (_, i) => i));
    expect(rows.every((r) => r.has_tsv && r.embedding.length === 0)).toBe(true);
    const listed = await listDocuments({ kbId: kb.id });
    expect(listed[0]).toMatchObject({ id: doc.id, title: "long.txt", mimeType: "text/plain", size: utf8(long).byteLength, chunkCount: doc.chunkCount });
    expect(listed.find((d) => d.id === docs.deploy)?.chunkCount).toBeGreaterThanOrEqual(3);

    await deleteDocument({ kbId: kb.id, id: doc.id });
    expect((await retrieveKnowledge({ kbId: kb.id, query: "topic17" })).entries).toEqual([]);
    expect((await appError(deleteDocument({ kbId: other.id, id: docs.deploy }))).code).toBe("NOT_FOUND");
  });
});

describe("knowledge bases", () => {
  it("refuses a duplicate or empty name", async () => {
    expect((await appError(createKnowledgeBase({ name: kb.name }))).code).toBe("CONFLICT");
    expect((await appError(createKnowledgeBase({ name: "  " }))).code).toBe("BAD_REQUEST");
  });

  it("lists with counts, by ids, and deletes with everything in it", async () => {
    const listed = await listKnowledgeBases({ ids: [kb.id] });
    expect(listed).toHaveLength(1);
    expect(listed[0]!.documentCount).toBe(3);
    expect(listed[0]!.chunkCount).toBeGreaterThanOrEqual(7);
    expect(await listKnowledgeBases({ ids: [] })).toEqual([]);
    expect((await listKnowledgeBases()).map((b) => b.id)).toEqual(expect.arrayContaining([kb.id, other.id]));

    const doomed = await createKnowledgeBase({ name: `doomed-${randomUUID()}` });
    await addDocument({ kbId: doomed.id, title: "a.md", mimeType: "text/markdown", bytes: utf8("# A\n\nsome text") });
    await deleteKnowledgeBase({ id: doomed.id });
    expect((await appError(getKnowledgeBase({ id: doomed.id }))).code).toBe("NOT_FOUND");
    const { rows } = await getPool().query(`select 1 from knowledge_chunks where knowledge_base_id = $1`, [doomed.id]);
    expect(rows).toEqual([]);
    expect((await appError(deleteKnowledgeBase({ id: doomed.id }))).code).toBe("NOT_FOUND");
  });
});
