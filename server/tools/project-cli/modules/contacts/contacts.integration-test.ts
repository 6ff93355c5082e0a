import { beforeAll, describe, expect, it } from "vitest";
import { dataOf, errorOf, openTestConnection, twoActors, type Actor } from "../../test-support";
import type { ContactsReadData } from "./data";
import { seedDemoContacts } from "./seed";

const db = openTestConnection();
const as = twoActors(db);

beforeAll(async () => {
  expect(await seedDemoContacts(as.aliceId)).toBeGreaterThanOrEqual(5);
  expect(await seedDemoContacts(as.aliceId)).toBe(0);
});

const read = async (actor: Actor, input: Record<string, unknown>) => dataOf<ContactsReadData>(await actor("contacts.read", input));

describe("contacts", () => {
  it("lists the user's contacts by name", async () => {
    const all = await read(as.alice, {});
    expect(all.items.map((c) => c.name)).toEqual([...all.items.map((c) => c.name)].sort((a, b) => a.localeCompare(b)));
    expect(all).toMatchObject({ query: null, count: all.items.length, total: all.items.length });
    expect(all.items.find((c) => c.name === "Ana Souza")).toMatchObject({ email: "ana.souza@example.com", company: "Lumen Labs", job_title: "Product Manager" });
  });

  it("searches name, email and company, ignoring case", async () => {
    expect((await read(as.alice, { query: "ANA" })).items.map((c) => c.name)).toContain("Ana Souza");
    expect((await read(as.alice, { query: "chen.wei@" })).items.map((c) => c.name)).toEqual(["Chen Wei"]);
    expect((await read(as.alice, { query: "lumen labs" })).items.map((c) => c.name)).toEqual(["Ana Souza", "Chen Wei"]);
    expect(await read(as.alice, { query: "zebra" })).toMatchObject({ items: [], count: 0, total: 0 });
  });

  it("treats LIKE wildcards in the query as text", async () => {
    expect((await read(as.alice, { query: "%" })).items).toEqual([]);
    expect((await read(as.alice, { query: "_" })).items).toEqual([]);
  });

  it("limits results and says how many match in all", async () => {
    const page = await read(as.alice, { limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.count).toBe(2);
    expect(page.total).toBeGreaterThanOrEqual(6);
  });

  it("never shows another user's contacts", async () => {
    expect(await read(as.bob, {})).toMatchObject({ items: [], total: 0 });
    expect((await read(as.bob, { query: "Ana" })).items).toEqual([]);
  });

  it("rejects unknown fields", async () => {
    expect(errorOf(await as.bob("contacts.read", { query: "Ana", owner_id: "x" })).code).toBe("INVALID_ACTION_INPUT");
  });
});
