import { beforeAll, describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { actAs, dataOf, errorOf, openTestConnection } from "../../test-support";
import type { ContactsReadData } from "./data";
import { seedDemoContacts } from "./seed";

const db = openTestConnection();
let asAlice: ReturnType<typeof actAs>;
let asBob: ReturnType<typeof actAs>;

beforeAll(async () => {
  const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  asAlice = actAs(db, alice.id);
  asBob = actAs(db, bob.id);
  expect(await seedDemoContacts(alice.id)).toBeGreaterThanOrEqual(5);
  expect(await seedDemoContacts(alice.id)).toBe(0);
});

const read = async (as: ReturnType<typeof actAs>, input: Record<string, unknown>) => dataOf<ContactsReadData>(await as("contacts.read", input));

describe("contacts", () => {
  it("lists the user's contacts by name", async () => {
    const all = await read(asAlice, {});
    expect(all.items.map((c) => c.name)).toEqual([...all.items.map((c) => c.name)].sort((a, b) => a.localeCompare(b)));
    expect(all).toMatchObject({ query: null, count: all.items.length, total: all.items.length });
    expect(all.items.find((c) => c.name === "Ana Souza")).toMatchObject({ email: "ana.souza@example.com", company: "Lumen Labs", job_title: "Product Manager" });
  });

  it("searches name, email and company, ignoring case", async () => {
    expect((await read(asAlice, { query: "ANA" })).items.map((c) => c.name)).toContain("Ana Souza");
    expect((await read(asAlice, { query: "chen.wei@" })).items.map((c) => c.name)).toEqual(["Chen Wei"]);
    expect((await read(asAlice, { query: "lumen labs" })).items.map((c) => c.name)).toEqual(["Ana Souza", "Chen Wei"]);
    expect(await read(asAlice, { query: "zebra" })).toMatchObject({ items: [], count: 0, total: 0 });
  });

  it("treats LIKE wildcards in the query as text", async () => {
    expect((await read(asAlice, { query: "%" })).items).toEqual([]);
    expect((await read(asAlice, { query: "_" })).items).toEqual([]);
  });

  it("limits results and says how many match in all", async () => {
    const page = await read(asAlice, { limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.count).toBe(2);
    expect(page.total).toBeGreaterThanOrEqual(6);
  });

  it("never shows another user's contacts", async () => {
    expect(await read(asBob, {})).toMatchObject({ items: [], total: 0 });
    expect((await read(asBob, { query: "Ana" })).items).toEqual([]);
  });

  it("rejects unknown fields", async () => {
    expect(errorOf(await asBob("contacts.read", { query: "Ana", owner_id: "x" })).code).toBe("INVALID_ACTION_INPUT");
  });
});
