import { TRPCError } from "@trpc/server";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { addDocument } from "@/server/knowledge/service/documents";
import { createCaller } from "@/server/trpc/root";
import { createTestUser } from "@/test/helpers";
import { callerAs, type Caller } from "@/test/trpc-callers";

// The callers get their principal directly; Auth.js's session lookup is never reached.
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));


let admin: Caller;
let member: Caller;
let anonymous: Caller;

beforeAll(async () => {
  const [adminUser, memberUser] = await Promise.all([createTestUser({ role: "admin" }), createTestUser()]);
  admin = callerAs(adminUser);
  member = callerAs(memberUser);
  anonymous = createCaller({ principal: null });
});

async function trpcCode(work: Promise<unknown>): Promise<string> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return (err as TRPCError).code;
}

describe("knowledge router", () => {
  it("lets an admin create, fill, search and delete a knowledge base", async () => {
    const kb = await admin.knowledge.create({ name: `trpc-${randomUUID()}`, description: "router test" });
    await addDocument({ kbId: kb.id, title: "notes.md", mimeType: "text/markdown", bytes: new TextEncoder().encode("# Notes\n\nThe launch code word is pelican.") });
    expect((await admin.knowledge.list()).find((b) => b.id === kb.id)).toMatchObject({ documentCount: 1, chunkCount: 1 });
    expect(await admin.knowledge.get({ id: kb.id })).toMatchObject({ name: kb.name, description: "router test" });
    const [doc] = await admin.knowledge.documents({ kbId: kb.id });
    expect(doc).toMatchObject({ title: "notes.md", chunkCount: 1 });
    const { entries } = await admin.knowledge.search({ kbId: kb.id, query: "pelican" });
    expect(entries.map((e) => e.document_id)).toEqual([doc!.id]);
    expect(await trpcCode(admin.knowledge.search({ kbId: kb.id, query: "pelican", topK: 51 }))).toBe("BAD_REQUEST");
    expect(await trpcCode(admin.knowledge.create({ name: kb.name }))).toBe("CONFLICT");
    await admin.knowledge.deleteDocument({ kbId: kb.id, id: doc!.id });
    await admin.knowledge.delete({ id: kb.id });
    expect(await trpcCode(admin.knowledge.get({ id: kb.id }))).toBe("NOT_FOUND");
  });

  it("refuses members (FORBIDDEN) and anonymous callers (UNAUTHORIZED) on every procedure", async () => {
    const kb = await admin.knowledge.create({ name: `guarded-${randomUUID()}` });
    const calls = (c: Caller) => [
      c.knowledge.list(),
      c.knowledge.get({ id: kb.id }),
      c.knowledge.create({ name: `intruder-${randomUUID()}` }),
      c.knowledge.delete({ id: kb.id }),
      c.knowledge.documents({ kbId: kb.id }),
      c.knowledge.deleteDocument({ kbId: kb.id, id: randomUUID() }),
      c.knowledge.search({ kbId: kb.id, query: "anything" }),
    ];
    for (const call of calls(member)) expect(await trpcCode(call)).toBe("FORBIDDEN");
    for (const call of calls(anonymous)) expect(await trpcCode(call)).toBe("UNAUTHORIZED");
    // Nothing was created or deleted by them.
    const names = (await admin.knowledge.list()).map((b) => b.name);
    expect(names).toContain(kb.name);
    expect(names.some((n) => n.startsWith("intruder-"))).toBe(false);
  });
});
