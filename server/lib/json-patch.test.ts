import { describe, expect, it } from "vitest";
import { applyJsonPatch, jsonEqual, jsonPatchOperationSchema, JsonPatchError, parsePointer, type JsonPatchOperation } from "./json-patch";

const apply = (doc: unknown, ops: JsonPatchOperation[]) => applyJsonPatch(doc, ops);

describe("applyJsonPatch (RFC 6902)", () => {
  it("adds members and array items, '-' appending (RFC 6902 A.1, A.2, A.16)", () => {
    expect(apply({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }])).toEqual({ foo: "bar", baz: "qux" });
    expect(apply({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }])).toEqual({ foo: ["bar", "qux", "baz"] });
    expect(apply({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc", "def"] }])).toEqual({ foo: ["bar", ["abc", "def"]] });
  });

  it("removes and replaces (A.3, A.4, A.5)", () => {
    expect(apply({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }])).toEqual({ foo: "bar" });
    expect(apply({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }])).toEqual({ foo: ["bar", "baz"] });
    expect(apply({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }])).toEqual({ baz: "boo", foo: "bar" });
    expect(apply({ a: [1, 2, 3] }, [{ op: "replace", path: "/a/1", value: 9 }])).toEqual({ a: [1, 9, 3] });
  });

  it("moves and copies (A.6, A.7)", () => {
    const doc = { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } };
    expect(apply(doc, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }])).toEqual({ foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } });
    expect(apply({ foo: ["all", "grass", "cows", "eat"] }, [{ op: "move", from: "/foo/1", path: "/foo/3" }])).toEqual({ foo: ["all", "cows", "eat", "grass"] });
    const copied = apply({ a: { b: [1] } }, [{ op: "copy", from: "/a", path: "/c" }]) as { a: { b: number[] }; c: { b: number[] } };
    expect(copied).toEqual({ a: { b: [1] }, c: { b: [1] } });
    expect(copied.c).not.toBe(copied.a);
  });

  it("tests values by JSON equality, whatever the members' order (A.8, A.9)", () => {
    const doc = { baz: "qux", foo: ["a", 2, "c"], obj: { x: 1, y: 2 } };
    expect(apply(doc, [{ op: "test", path: "/obj", value: { y: 2, x: 1 } }])).toEqual(doc);
    expect(() => apply(doc, [{ op: "test", path: "/baz", value: "bar" }])).toThrow(/test failed/);
  });

  it("unescapes ~1 and ~0 in pointers (RFC 6901)", () => {
    expect(parsePointer("/a~1b/m~0n")).toEqual(["a/b", "m~n"]);
    expect(apply({ "a/b": 1 }, [{ op: "replace", path: "/a~1b", value: 2 }])).toEqual({ "a/b": 2 });
  });

  it("never writes to its input, even where every operation lands inside it", () => {
    const deepFreeze = <T>(value: T): T => {
      if (typeof value === "object" && value !== null) {
        for (const child of Object.values(value)) deepFreeze(child);
        Object.freeze(value);
      }
      return value;
    };
    const doc = deepFreeze({ items: [{ id: 1, tags: ["a"] }, { id: 2, tags: [] }], meta: { n: 2, nested: { deep: true } } });
    const ops: JsonPatchOperation[] = [
      { op: "add", path: "/items/0/tags/-", value: "b" },
      { op: "replace", path: "/meta/nested/deep", value: false },
      { op: "move", from: "/items/1", path: "/meta/moved" },
      { op: "add", path: "/meta/moved/tags/0", value: "c" },
      { op: "copy", from: "/items/0", path: "/items/-" },
      { op: "remove", path: "/meta/n" },
    ];
    // A frozen input throws on any write in strict mode: the patch must copy what it changes.
    expect(apply(doc, ops)).toEqual({
      items: [{ id: 1, tags: ["a", "b"] }, { id: 1, tags: ["a", "b"] }],
      meta: { nested: { deep: false }, moved: { id: 2, tags: ["c"] } },
    });
    expect(doc).toEqual({ items: [{ id: 1, tags: ["a"] }, { id: 2, tags: [] }], meta: { n: 2, nested: { deep: true } } });
  });

  it("is all or nothing and never changes its input", () => {
    const doc = { steps: [{ status: "pending" }] };
    expect(() =>
      apply(doc, [
        { op: "replace", path: "/steps/0/status", value: "done" },
        { op: "remove", path: "/missing" },
      ]),
    ).toThrow(JsonPatchError);
    expect(doc).toEqual({ steps: [{ status: "pending" }] });
  });

  it("changes the document itself when asked to, inserting copies of the values", () => {
    const doc = { a: [1] };
    const value = { b: 1 };
    const out = applyJsonPatch(doc, [{ op: "add", path: "/a/-", value }], { inPlace: true }) as { a: unknown[] };
    expect(out).toBe(doc);
    expect(doc).toEqual({ a: [1, { b: 1 }] });
    expect(out.a[1]).not.toBe(value);
  });

  it("names the failing operation and the reason", () => {
    try {
      apply({ a: [] }, [
        { op: "add", path: "/b", value: 1 },
        { op: "replace", path: "/a/3", value: 1 },
      ]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(JsonPatchError);
      expect((err as JsonPatchError).index).toBe(1);
      expect((err as Error).message).toMatch(/operation 1: index 3 is out of bounds/);
    }
    expect(() => apply({}, [{ op: "add", path: "/x/y", value: 1 }])).toThrow(/"x" does not exist/);
    expect(() => apply({ a: [1] }, [{ op: "add", path: "/a/01", value: 1 }])).toThrow(/not an array index/);
    expect(() => apply({ a: { b: 1 } }, [{ op: "move", from: "/a", path: "/a/c" }])).toThrow(/into itself/);
  });

  it("keeps a member named __proto__ an ordinary member", () => {
    const out = apply({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true}}');
  });

  it("refuses unchecked operations it does not know and paths that are not pointers", () => {
    expect(() => apply({}, [{ op: "merge", path: "/a" } as never])).toThrow(/operation 0: unknown operation "merge"/);
    expect(() => apply({}, [{ op: "add", path: "a", value: 1 } as never])).toThrow(/is not a JSON Pointer/);
    expect(() => apply({}, [{ op: "remove" } as never])).toThrow(JsonPatchError);
  });

  it("replaces the whole document at the empty pointer", () => {
    expect(apply({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }])).toEqual({ b: 2 });
  });
});

describe("jsonPatchOperationSchema", () => {
  it("accepts the six operations and refuses others and malformed pointers", () => {
    expect(jsonPatchOperationSchema.safeParse({ op: "move", from: "/a", path: "/b" }).success).toBe(true);
    expect(jsonPatchOperationSchema.safeParse({ op: "merge", path: "/a", value: 1 }).success).toBe(false);
    expect(jsonPatchOperationSchema.safeParse({ op: "add", path: "a", value: 1 }).success).toBe(false);
    expect(jsonPatchOperationSchema.safeParse({ op: "copy", path: "/a" }).success).toBe(false);
  });
});

describe("jsonEqual", () => {
  it("compares arrays in order and objects by members", () => {
    expect(jsonEqual([1, { a: 2 }], [1, { a: 2 }])).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});
