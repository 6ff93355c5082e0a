import { describe, expect, it } from "vitest";
import { jsonBodyOf, jsonBytes, jsonResponse } from "./json";

describe("jsonBytes", () => {
  it("gives exactly JSON.stringify's text, as UTF-8", () => {
    const page = {
      scope: "history_day",
      day: "2026-03-15",
      messages: Array.from({ length: 1_000 }, (_, i) => ({
        id: `m${i}`,
        seq: i,
        content: "ü\u2028\"quoted\" \\ 😀".repeat(i % 7),
        skipped: i % 3 ? undefined : () => i,
        extra: i % 5 ? null : { deep: [i, { at: new Date(i * 1_000) }] },
      })),
      hasMore: true,
    };
    const cases: unknown[] = [
      page,
      {},
      [],
      "text",
      42,
      null,
      { a: undefined, b: () => 1, c: Symbol("c"), d: null },
      [undefined, () => 1, Symbol("s"), 1],
      { when: new Date(0), nested: [1, "é", { z: [new Date(5)] }] },
      [[1, [2, [3]]]],
      { toJSON: () => ({ replaced: true }) },
    ];
    for (const value of cases) expect(jsonBytes(value).toString("utf8")).toBe(JSON.stringify(value));
  });

  it("answers with the same bytes through the Response and to the node routes", async () => {
    const body = { messages: Array.from({ length: 300 }, (_, i) => ({ seq: i, content: `message ${i}` })) };
    const response = jsonResponse(body, 201, { "x-extra": "1" });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-extra")).toBe("1");
    expect(jsonBodyOf(response)?.toString("utf8")).toBe(JSON.stringify(body));
    expect(await response.text()).toBe(JSON.stringify(body));
    // Once the body has been read, the node routes must not write it again.
    expect(jsonBodyOf(response)).toBeUndefined();
  });
});
