import { describe, expect, it } from "vitest";
import { encodeJsonText, jsonText } from "./json-text";

describe("JSON text in pieces", () => {
  it("counts UTF-8 bytes, not characters, and encodes the pieces in order", () => {
    const text = jsonText(['{"a":"', "日本語 ✓", '","b":[', "1,2", "]}"]);
    expect(text.byteLength).toBe(Buffer.byteLength('{"a":"日本語 ✓","b":[1,2]}'));
    expect(JSON.parse(encodeJsonText(text).toString("utf8"))).toEqual({ a: "日本語 ✓", b: [1, 2] });
  });

  it("encodes into the start of a larger buffer and answers exactly that part", () => {
    const into = Buffer.alloc(64, "x");
    const bytes = encodeJsonText(jsonText(["[", '"é"', "]"]), into);
    expect(bytes.toString("utf8")).toBe('["é"]');
    expect(bytes.buffer).toBe(into.buffer);
  });
});
