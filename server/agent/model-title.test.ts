import { describe, expect, it } from "vitest";
import { cleanModelTitle } from "./model-title";

describe("a model's reply as a thread title", () => {
  it("keeps the words of the first line, without quotes, a label or final punctuation", () => {
    expect(cleanModelTitle('"Weekend trip to Lisbon."\n')).toBe("Weekend trip to Lisbon");
    expect(cleanModelTitle("Title: Call with Ana on Friday")).toBe("Call with Ana on Friday");
    expect(cleanModelTitle("\n  “周五与安娜通话”。\nmore")).toBe("周五与安娜通话");
    expect(cleanModelTitle("**Quarterly report summary**")).toBe("Quarterly report summary");
  });

  it("shortens a long one at a word and gives up on an empty one", () => {
    const long = cleanModelTitle("A very long title that goes on and on about the many plans for the coming summer holidays");
    expect(long!.length).toBeLessThanOrEqual(60);
    expect(long).toMatch(/…$/);
    expect(cleanModelTitle("  \n ")).toBeNull();
    expect(cleanModelTitle('""')).toBeNull();
  });
});
