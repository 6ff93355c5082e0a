import { describe, expect, it } from "vitest";
import { searchQueryText } from "./thread-search";

describe("searchQueryText", () => {
  it("turns each run of Chinese into a phrase of its characters, leaving other words as typed", () => {
    expect(searchQueryText("天气")).toBe(' "天 气" ');
    expect(searchQueryText("budget 天气 -lunch")).toBe('budget  "天 气"  -lunch');
    expect(searchQueryText("好")).toBe(" 好 ");
  });

  it("keeps a quoted phrase one phrase when it holds Chinese", () => {
    expect(searchQueryText('"今天 weather"')).toBe('" 今 天  weather"');
    expect(searchQueryText('"a" 天气')).toBe('"a"  "天 气" ');
  });
});
