import { describe, expect, it } from "vitest";
import { dataOf, errorOf, openTestConnection, twoActors, type Actor } from "../../test-support";
import type { MemoryReadData, MemoryUpdateData } from "./data";

const db = openTestConnection();
const as = twoActors(db);

const facts = async (actor: Actor) =>
  dataOf<MemoryReadData>(await actor("memory.read", {})).facts.map(({ key, value }) => ({ key, value }));

describe("memory", () => {
  it("starts empty, writes one fact or many, and reads them back by key", async () => {
    expect(await facts(as.alice)).toEqual([]);
    const one = dataOf<MemoryUpdateData>(await as.alice("memory.update", { key: "preferred_meeting_time", value: "mornings" }));
    expect(one.written).toEqual([{ key: "preferred_meeting_time", value: "mornings", updated_at: expect.any(String) }]);
    expect(Math.abs(Date.parse(one.written[0]!.updated_at) - Date.now())).toBeLessThan(60_000);
    await as.alice("memory.update", { facts: [{ key: "home.city", value: "Lisbon" }, { key: "diet", value: "vegetarian" }] });
    expect(await facts(as.alice)).toEqual([
      { key: "diet", value: "vegetarian" },
      { key: "home.city", value: "Lisbon" },
      { key: "preferred_meeting_time", value: "mornings" },
    ]);
  });

  it("replaces a value, forgets a key on null, and says which keys were not there", async () => {
    const result = dataOf<MemoryUpdateData>(
      await as.alice("memory.update", {
        facts: [
          { key: "home.city", value: "Porto" },
          { key: "diet", value: null },
          { key: "never_set", value: null },
        ],
      }),
    );
    expect(result).toMatchObject({ written: [{ key: "home.city", value: "Porto" }], forgotten: ["diet"], not_found: ["never_set"] });
    expect(await facts(as.alice)).toEqual([
      { key: "home.city", value: "Porto" },
      { key: "preferred_meeting_time", value: "mornings" },
    ]);
  });

  it("keeps each user's facts apart", async () => {
    expect(await facts(as.bob)).toEqual([]);
    await as.bob("memory.update", { key: "home.city", value: "Recife" });
    expect((await facts(as.alice)).find((f) => f.key === "home.city")?.value).toBe("Porto");
    const forget = dataOf<MemoryUpdateData>(await as.bob("memory.update", { key: "preferred_meeting_time", value: null }));
    expect(forget.not_found).toEqual(["preferred_meeting_time"]);
    expect((await facts(as.alice)).map((f) => f.key)).toContain("preferred_meeting_time");
  });

  it("writes nothing when one fact in a batch is invalid", async () => {
    const output = await as.alice("memory.update", { facts: [{ key: "ok_key", value: "x" }, { key: "Not OK", value: "y" }] });
    expect(errorOf(output).code).toBe("INVALID_ACTION_INPUT");
    expect((await facts(as.alice)).map((f) => f.key)).not.toContain("ok_key");
  });
});
