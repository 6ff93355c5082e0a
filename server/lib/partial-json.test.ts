import { describe, expect, it } from "vitest";
import { parsePartialJson } from "./partial-json";

describe("parsePartialJson", () => {
  it("reads a string argument as far as it has arrived", () => {
    expect(parsePartialJson('{"document":"Once upon a')).toEqual({ document: "Once upon a" });
    expect(parsePartialJson('{"document":"line\\nnext')).toEqual({ document: "line\nnext" });
    expect(parsePartialJson('{"document":"a back\\\\')).toEqual({ document: "a back\\" });
  });

  it("leaves out half an escape until the rest arrives", () => {
    expect(parsePartialJson('{"document":"quote \\')).toEqual({ document: "quote " });
    expect(parsePartialJson('{"document":"snow \\u26')).toEqual({ document: "snow " });
  });

  it("closes open arrays and objects, and drops a trailing comma", () => {
    expect(parsePartialJson('{"plan":{"steps":[{"description":"Find"},')).toEqual({ plan: { steps: [{ description: "Find" }] } });
    expect(parsePartialJson('{"a":[1,2')).toEqual({ a: [1, 2] });
  });

  it("gives undefined for a tail that is not closable yet", () => {
    expect(parsePartialJson("")).toBeUndefined();
    expect(parsePartialJson('{"document"')).toBeUndefined();
    expect(parsePartialJson('{"document":')).toBeUndefined();
    expect(parsePartialJson('{"done":tru')).toBeUndefined();
  });

  it("reads complete JSON as it is", () => {
    expect(parsePartialJson('{"document":"The end."}')).toEqual({ document: "The end." });
  });
});
