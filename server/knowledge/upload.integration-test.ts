import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { pngBytes } from "@/test/images";
import { listDocuments, MAX_DOCUMENT_BYTES } from "./service/documents";
import { createKnowledgeBase, type KnowledgeBase } from "./service/knowledge-bases";
import { retrieveKnowledge } from "./service/retrieve";

// POST /api/v1/admin/knowledge/{kbId}/documents over real HTTP against the production server.

type Admin = Awaited<ReturnType<typeof createTestUser>> & { cookie: string };
let admin: Admin;
let memberCookie: string;
let kb: KnowledgeBase;

beforeAll(async () => {
  const [adminUser, member] = await Promise.all([createTestUser({ role: "admin" }), createTestUser()]);
  admin = { ...adminUser, cookie: (await signInOverHttp(adminUser.email, adminUser.password))! };
  memberCookie = (await signInOverHttp(member.email, member.password))!;
  expect(admin.cookie && memberCookie).toBeTruthy();
  kb = await createKnowledgeBase({ name: `upload-${randomUUID()}` });
});

function upload(opts: { kbId?: string; headers?: Record<string, string>; bytes: Uint8Array; type?: string; filename?: string; title?: string }): Promise<Response> {
  const form = new FormData();
  if (opts.title) form.append("title", opts.title);
  form.append("file", new Blob([Buffer.from(opts.bytes)], { type: opts.type ?? "" }), opts.filename ?? "notes.md");
  return fetch(`${baseUrl()}/api/v1/admin/knowledge/${opts.kbId ?? kb.id}/documents`, { method: "POST", headers: opts.headers ?? { cookie: admin.cookie }, body: form });
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const errorOf = async (res: Response) => ({ status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message });

describe("document upload", () => {
  it("stores a Markdown file an admin uploads, typed by its name when the browser sends no type", async () => {
    const res = await upload({ bytes: utf8("# Runbook\n\n## Failover\n\nPromote the replica with pg_ctl promote."), filename: "runbook.md" });
    expect(res.status).toBe(201);
    const doc = (await res.json()) as { id: string; title: string; mimeType: string; chunkCount: number };
    expect(doc).toMatchObject({ title: "runbook.md", mimeType: "text/markdown", chunkCount: 1 });
    const { entries } = await retrieveKnowledge({ kbId: kb.id, query: "promote replica" });
    expect(entries[0]).toMatchObject({ document_id: doc.id, metadata: { headings: ["Runbook", "Failover"] } });

    const titled = await upload({ bytes: utf8("plain words"), type: "text/plain", filename: "x.txt", title: "Glossary" });
    expect(((await titled.json()) as { title: string }).title).toBe("Glossary");
  });

  it("refuses non-text files, oversize files and other bodies with a clear message", async () => {
    const before = (await listDocuments({ kbId: kb.id })).length;
    expect(await errorOf(await upload({ bytes: pngBytes(), type: "image/png", filename: "diagram.png" }))).toEqual({
      status: 415,
      message: "Only text/plain and text/markdown documents (UTF-8) are accepted; this file is image/png.",
    });
    expect((await errorOf(await upload({ bytes: pngBytes(1), filename: "diagram.txt" }))).status).toBe(415);
    const big = await errorOf(await upload({ bytes: new Uint8Array(MAX_DOCUMENT_BYTES + 1).fill(0x61), type: "text/plain", filename: "big.txt" }));
    expect(big).toEqual({ status: 413, message: "Documents are limited to 5 MB. Split the file and upload the parts." });
    const raw = await fetch(`${baseUrl()}/api/v1/admin/knowledge/${kb.id}/documents`, { method: "POST", headers: { cookie: admin.cookie, "content-type": "text/plain" }, body: "hello" });
    expect((await errorOf(raw)).status).toBe(415);
    expect((await errorOf(await upload({ kbId: randomUUID(), bytes: utf8("hello"), type: "text/plain" }))).status).toBe(404);
    expect((await listDocuments({ kbId: kb.id })).length).toBe(before);
  });

  it("accepts only an admin's browser session from the same site", async () => {
    const before = (await listDocuments({ kbId: kb.id })).length;
    const doc = utf8(`intruder ${randomUUID()}`);
    expect((await upload({ headers: {}, bytes: doc, type: "text/plain" })).status).toBe(401);
    expect((await upload({ headers: bearer(admin.apiKey), bytes: doc, type: "text/plain" })).status).toBe(401);
    expect((await upload({ headers: { cookie: memberCookie }, bytes: doc, type: "text/plain" })).status).toBe(403);
    expect((await upload({ headers: { cookie: admin.cookie, "sec-fetch-site": "cross-site" }, bytes: doc, type: "text/plain" })).status).toBe(403);
    expect((await listDocuments({ kbId: kb.id })).length).toBe(before);
  });
});
