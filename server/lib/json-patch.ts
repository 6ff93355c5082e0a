import { z } from "zod";

// RFC 6902 JSON Patch over RFC 6901 JSON Pointers: the six operations, applied in order to a copy,
// all or nothing. AG-UI's STATE_DELTA carries exactly these operations and clients apply them with
// a JSON Patch library (@ag-ui/client uses fast-json-patch), so what applies here applies there.

const pointer = z.string().refine((p) => p === "" || p.startsWith("/"), 'a JSON Pointer is "" or starts with "/"');

export const jsonPatchOperationSchema = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("add"), path: pointer, value: z.unknown() }),
  z.strictObject({ op: z.literal("remove"), path: pointer }),
  z.strictObject({ op: z.literal("replace"), path: pointer, value: z.unknown() }),
  z.strictObject({ op: z.literal("move"), from: pointer, path: pointer }),
  z.strictObject({ op: z.literal("copy"), from: pointer, path: pointer }),
  z.strictObject({ op: z.literal("test"), path: pointer, value: z.unknown() }),
]);

export type JsonPatchOperation = z.infer<typeof jsonPatchOperationSchema>;

/** Why a patch did not apply: which operation (its index) and what was wrong, in words a model can act on. */
export class JsonPatchError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(`operation ${index}: ${message}`);
    this.name = "JsonPatchError";
  }
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === "object" && v !== null;

/** The reference tokens of a pointer ("" is the whole document: no tokens). */
export function parsePointer(path: string): string[] {
  if (path === "") return [];
  if (typeof path !== "string" || !path.startsWith("/")) throw new Error(`${JSON.stringify(path)} is not a JSON Pointer`);
  return path
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

function arrayIndex(array: unknown[], token: string, opts: { append: boolean }): number {
  if (opts.append && token === "-") return array.length;
  if (!ARRAY_INDEX.test(token)) throw new Error(`"${token}" is not an array index`);
  const index = Number(token);
  const max = opts.append ? array.length : array.length - 1;
  if (index > max) throw new Error(`index ${index} is out of bounds (the array has ${array.length} items)`);
  return index;
}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

function childOf(parent: unknown, token: string): unknown {
  if (Array.isArray(parent)) return parent[arrayIndex(parent, token, { append: false })];
  if (isContainer(parent) && hasOwn(parent, token)) return (parent as Record<string, unknown>)[token];
  throw new Error(`"${token}" does not exist`);
}

function valueAt(doc: unknown, tokens: readonly string[]): unknown {
  let node = doc;
  for (const token of tokens) node = childOf(node, token);
  return node;
}

// A patch changes a draft of the document: the containers it writes to, and each one above them,
// are shallow copies the draft owns (made the first time the patch writes below them); everything
// else is shared with the document, which is never changed. A 20 KB state patched at one path
// costs a few small copies, not a copy of the whole state per call.
class Draft {
  private readonly own = new Set<object>();
  constructor(
    public root: unknown,
    private readonly inPlace: boolean,
  ) {}

  private owned(container: Container): Container {
    if (this.inPlace || this.own.has(container)) return container;
    const copy = Array.isArray(container) ? container.slice() : { ...container };
    this.own.add(copy);
    return copy;
  }

  /** The container a pointer's last token is in (owned by the draft), and that token. */
  parentOf(tokens: readonly string[]): { parent: Container; key: string } {
    // Read first: a path that does not lead anywhere fails before anything is copied.
    const above = tokens.slice(0, -1);
    if (!isContainer(valueAt(this.root, above))) throw new Error("the parent of the target is not an object or an array");
    this.root = this.owned(this.root as Container);
    let node = this.root as Container;
    for (const token of above) {
      const child = childOf(node, token) as Container;
      const mine = this.owned(child);
      if (mine !== child) {
        if (Array.isArray(node)) node[Number(token)] = mine;
        else setMember(node, token, mine);
      }
      node = mine;
    }
    return { parent: node, key: tokens[tokens.length - 1]! };
  }
}

// defineProperty, not assignment: a key named "__proto__" is an ordinary member of a JSON object.
function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

function addAt(draft: Draft, tokens: readonly string[], value: unknown): void {
  if (tokens.length === 0) {
    draft.root = value;
    return;
  }
  const { parent, key } = draft.parentOf(tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, { append: true }), 0, value);
  else setMember(parent, key, value);
}

function removeAt(draft: Draft, tokens: readonly string[]): void {
  if (tokens.length === 0) {
    draft.root = undefined;
    return;
  }
  const { parent, key } = draft.parentOf(tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, { append: false }), 1);
  else if (hasOwn(parent, key)) delete parent[key];
  else throw new Error(`"${key}" does not exist`);
}

/** JSON equality: objects by their members whatever their order, arrays item by item. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => jsonEqual(item, (b as unknown[])[i]));
  const keys = Object.keys(a);
  const other = b as Record<string, unknown>;
  return keys.length === Object.keys(other).length && keys.every((k) => hasOwn(other, k) && jsonEqual(a[k], other[k]));
}

const copyOf = (value: unknown): unknown => (value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown));

function applyOne(draft: Draft, op: JsonPatchOperation): void {
  const tokens = parsePointer(op.path);
  switch (op.op) {
    case "add":
      return addAt(draft, tokens, copyOf(op.value));
    case "remove":
      return removeAt(draft, tokens);
    case "replace":
      valueAt(draft.root, tokens);
      removeAt(draft, tokens);
      return addAt(draft, tokens, copyOf(op.value));
    case "move": {
      const from = parsePointer(op.from);
      if (op.path !== op.from && op.path.startsWith(`${op.from}/`)) throw new Error("cannot move a value into itself");
      const value = valueAt(draft.root, from);
      removeAt(draft, from);
      return addAt(draft, tokens, value);
    }
    case "copy":
      return addAt(draft, tokens, copyOf(valueAt(draft.root, parsePointer(op.from))));
    case "test":
      if (!jsonEqual(valueAt(draft.root, tokens), op.value)) throw new Error(`test failed: the value at "${op.path}" differs`);
      return;
    default:
      // Operations read from a log or a runner were not checked by the schema.
      throw new Error(`unknown operation ${JSON.stringify((op as { op: unknown }).op)}`);
  }
}

/**
 * Applies the operations in order to a copy of `document` and returns the result; the document
 * itself is never changed. One failing operation fails the whole patch (RFC 6902 §5).
 * `inPlace`: changes `document` itself instead (no copy), for a caller that owns it and drops it
 * when a patch fails; the values the operations insert are still copies.
 */
export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[], opts: { inPlace?: boolean } = {}): unknown {
  const draft = new Draft(document, opts.inPlace === true);
  operations.forEach((op, index) => {
    try {
      applyOne(draft, op);
    } catch (err) {
      throw new JsonPatchError(index, err instanceof Error ? err.message : String(err));
    }
  });
  return draft.root;
}
