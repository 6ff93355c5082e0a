import { describe, expect, it } from "vitest";
import { looseQueryText, MAX_LOOSE_TERMS, segmentForSearch } from "./search-text";

describe("segmentForSearch", () => {
  it("turns runs of Han and kana into overlapping bigrams and leaves other words alone", () => {
    expect(segmentForSearch("知识库").trim()).toBe("知识 识库");
    expect(segmentForSearch("用 Docker 部署").split(/\s+/).filter(Boolean)).toEqual(["用", "Docker", "部署"]);
    expect(segmentForSearch("カタカナ").trim()).toBe("カタ タカ カナ");
    expect(segmentForSearch("Über straße")).toBe("Über straße");
  });
});

describe("looseQueryText", () => {
  it("ORs the distinct lower-cased terms, longer ones as prefixes", () => {
    expect(looseQueryText("Run the DEPLOYMENT, run!")).toBe("'run' | 'the' | 'deployment':*");
  });

  it("keeps only letters and digits, so punctuation cannot break the tsquery", () => {
    expect(looseQueryText(`it's "quoted" & (grouped) | !not :*`)).toBe("'it' | 's' | 'quoted':* | 'grouped':* | 'not'");
    expect(looseQueryText("?!& ...")).toBe("");
  });

  it("segments CJK terms and caps the number of terms", () => {
    expect(looseQueryText("检索功能")).toBe("'检索':* | '索功':* | '功能':*");
    const many = Array.from({ length: 100 }, (_, i) => `term${i}`).join(" ");
    expect(looseQueryText(many).split(" | ")).toHaveLength(MAX_LOOSE_TERMS);
  });
});
