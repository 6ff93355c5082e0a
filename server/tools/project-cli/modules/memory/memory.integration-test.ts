import { beforeAll, describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { actAs, dataOf, errorOf, openTestConnection } from "../../test-support";
import type { MemoryReadData, MemoryUpdateData } from "./data";

const db = openTestConnection();
let asAlice: ReturnType<typeof actAs>;
let asBob: ReturnType<typeof actAs>;

beforeAll(async () => {
  const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  asAlice = actAs(db, alice.id);
  asBob = actAs(db, bob.id);
});

const facts = async (as: ReturnType<typeof actAs>) =>
  dataOf<MemoryReadData>(await as("memory.read", {})).facts.map(({ key, value }) => ({ key, value }));

describe("memory", () => {
  it("starts empty, writes one fact or many, and reads them back by key", async () => {
    expect(await facts(asAlice)).toEqual([]);
    const one = dataOf<MemoryUpdateData>(await asAlice("memory.update", { key: "preferred_meeting_time", value: "mornings" }));
    expect(one.written).toEqual([{ key: "preferred_meeting_time", value: "mornings", updated_at: expect.any(String) }]);
    expect(Math.abs(Date.parse(one.written[0]!.updated_at) - Date.now())).toBeLessThan(60_000);
    await asAlice("memory.update", { facts: [{ key: "home.city", value: "Lisbon" }, { key: "diet", value: "vegetarian" }] });
    expect(await facts(asAlice)).toEqual([
      { key: "diet", value: "vegetarian" },
      { key: "home.city", value: "Lisbon" },
      { key: "preferred_meeting_time", value: "mornings" },
    ]);
  });

  it("replaces a value, forgets a key on null, and says which keys were not there", async () => {
    const result = dataOf<MemoryUpdateData>(
      await asAlice("memory.update", {
        facts: [
          { key: "home.city", value: "Porto" },
          { key: "diet", value: null },
          { key: "never_set", value: null },
        ],
      }),
    );
    expect(result).toMatchObject({ written: [{ key: "home.city", value: "Porto" }], forgotten: ["diet"], not_found: ["never_set"] });
    expect(await facts(asAlice)).toEqual([
      { key: "home.city", value: "Porto" },
      { key: "preferred_meeting_time", value: "mornings" },
    ]);
  });

  it("keeps each user's facts apart", async () => {
    expect(await facts(asBob)).toEqual([]);
    await asBob("memory.update", { key: "home.city", value: "Recife" });
    expect((await facts(asAlice)).find((f) => f.key === "home.city")?.value).toBe("Porto");
    const forget = dataOf<MemoryUpdateData>(await asBob("memory.update", { key: "preferred_meeting_time", value: null }));
    expect(forget.not_found).toEqual(["preferred_meeting_time"]);
    expect((await facts(asAlice)).map((f) => f.key)).toContain("preferred_meeting_time");
  });

  it("writes nothing when one fact in a batch is invalid", async () => {
    const output = await asAlice("memory.update", { facts: [{ key: "ok_key", value: "x" }, { key: "Not OK", value: "y" }] });
    expect(errorOf(output).code).toBe("INVALID_ACTION_INPUT");
    expect((await facts(asAlice)).map((f) => f.key)).not.toContain("ok_key");
  });
});
