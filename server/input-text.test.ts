import { describe, expect, it } from "vitest";
import { checkJsonText, decodeUtf8, MAX_JSON_DEPTH, stringProblem } from "./input-text";

describe("decodeUtf8", () => {
  it("refuses bytes that are not UTF-8 instead of replacing them", () => {
    expect(decodeUtf8(Buffer.from('{"a":"é"}'))).toBe('{"a":"é"}');
    expect(decodeUtf8(Uint8Array.from([0x7b, 0xff, 0x7d]))).toBeNull();
    // An encoded surrogate (CESU-8) is not UTF-8 either.
    expect(decodeUtf8(Uint8Array.from([0xed, 0xa0, 0x80]))).toBeNull();
  });
});

describe("checkJsonText", () => {
  it("refuses nesting deeper than the limit before anything parses it", () => {
    expect(checkJsonText(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`)).toBeNull();
    expect(checkJsonText(`${"[".repeat(20_000)}${"]".repeat(20_000)}`)?.message).toMatch(/nested too deeply/);
    expect(checkJsonText(`{"s":"${"[".repeat(200)}"}`)).toBeNull(); // brackets inside a string do not nest
  });

  it("names the field whose string holds a NUL or a lone surrogate", () => {
    expect(checkJsonText('{"messages":[{"content":"a\\u0000b"}]}')).toEqual({ message: expect.stringMatching(/^messages\[0\]\.content: contains a NUL/), field: "messages[0].content" });
    expect(checkJsonText('{"a":["x","\\ud800"]}')).toMatchObject({ field: "a[1]", message: expect.stringMatching(/lone UTF-16 surrogate/) });
    expect(checkJsonText('{"a":"\\udc00x"}')).toMatchObject({ field: "a" });
    expect(checkJsonText('{"k\\u0000":1}')?.message).toMatch(/has a key that contains a NUL/);
  });

  it("accepts surrogate pairs, escaped backslashes and text that only looks like an escape", () => {
    expect(checkJsonText('{"a":"\\ud83d\\ude00","b":"\\\\u0000","c":"\\\\ud800"}')).toBeNull();
    expect(checkJsonText('{"a":"🙂"}')).toBeNull();
  });
});

describe("stringProblem", () => {
  it("finds NULs and lone surrogates only", () => {
    expect(stringProblem("plain 🙂")).toBeNull();
    expect(stringProblem("a\0")).toMatch(/NUL/);
    expect(stringProblem("\ud800")).toMatch(/surrogate/);
    expect(stringProblem("x\udfff")).toMatch(/surrogate/);
  });
});
