import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Prisma's CLI ships its schema engine compiled to WebAssembly (build/schema_engine_bg.wasm)
// but not the wasm-bindgen JavaScript that drives it, and Prisma 7's CLI only runs the native
// engine, which cannot be downloaded here. This file is that missing JavaScript side, written
// for the exact imports of prisma@7.10.0's build: an unknown import fails loudly at load time
// instead of misbehaving, so a Prisma upgrade shows up as a clear error in the drift test.

const require = createRequire(import.meta.url);
export const SCHEMA_ENGINE_WASM_PATH = join(dirname(require.resolve("prisma/package.json")), "build", "schema_engine_bg.wasm");

/** A schema engine instance: the same JSON-RPC methods the native engine serves, as promises. */
export interface WasmSchemaEngine {
  diff(params: unknown): Promise<{ exitCode: number; stdout?: string | null }>;
  free(): void;
}

type Fn = (...args: never[]) => unknown;
type Exports = Record<string, Fn> & { memory: WebAssembly.Memory; __wbindgen_externrefs: WebAssembly.Table };

let wasm: Exports | undefined;
let lastPanic = "";
const decoder = new TextDecoder("utf-8", { ignoreBOM: true, fatal: true });
const encoder = new TextEncoder();

function exp(name: string): (...args: unknown[]) => unknown {
  const f = wasm![name];
  if (typeof f !== "function") throw new Error(`schema engine wasm has no export ${name}`);
  return f as (...args: unknown[]) => unknown;
}

function bytes(ptr: number, len: number): Uint8Array {
  return new Uint8Array(wasm!.memory.buffer, ptr >>> 0, len);
}

function readString(ptr: number, len: number): string {
  return decoder.decode(bytes(ptr, len));
}

/** Copies a string into wasm memory and returns [pointer, byte length]. */
function passString(value: string): [number, number] {
  const buf = encoder.encode(value);
  const ptr = (exp("__wbindgen_malloc")(buf.length, 1) as number) >>> 0;
  bytes(ptr, buf.length).set(buf);
  return [ptr, buf.length];
}

function view(): DataView {
  return new DataView(wasm!.memory.buffer);
}

/** Writes an optional string the way wasm-bindgen's "return pointer" convention expects. */
function writeString(retptr: number, value: string | undefined): void {
  const [ptr, len] = value === undefined ? [0, 0] : passString(value);
  view().setInt32(retptr + 4, len, true);
  view().setInt32(retptr, ptr, true);
}

function addToTable(value: unknown): number {
  const idx = exp("__externref_table_alloc")() as number;
  wasm!.__wbindgen_externrefs.set(idx, value);
  return idx;
}

/** Optional JS values returned to Rust travel as a table index, 0 meaning none. */
function optionalRef(value: unknown): number {
  return value === undefined || value === null ? 0 : addToTable(value);
}

/** JS exceptions thrown inside an import are handed to Rust as a `Result::Err`. */
function catching<A extends unknown[]>(f: (...args: A) => unknown): (...args: A) => unknown {
  return (...args: A) => {
    try {
      return f(...args);
    } catch (e) {
      exp("__wbindgen_exn_store")(addToTable(e));
      return undefined;
    }
  };
}

const CLOSURE_PREFIX = "wasm_bindgen_353b96ef71864b03___";
const closureExport = (suffix: string) => `${CLOSURE_PREFIX}${suffix}`;
const INVOKE_1 = closureExport("convert__closures_____invoke___wasm_bindgen_353b96ef71864b03___JsValue_____");
const INVOKE_2 = closureExport(
  "convert__closures_____invoke___wasm_bindgen_353b96ef71864b03___JsValue__wasm_bindgen_353b96ef71864b03___JsValue_____",
);
const DESTROY = closureExport(
  "closure__destroy___dyn_core_9b3796e30d99ddb7___ops__function__FnMut__wasm_bindgen_353b96ef71864b03___JsValue____Output_______",
);

/** A Rust `FnMut(JsValue)` handed to JS: reference counted so Rust frees it exactly once. */
function rustClosure(a: number, b: number): (arg: unknown) => unknown {
  const state = { a, b, count: 1 };
  const release = () => {
    if (--state.count === 0) {
      exp(DESTROY)(state.a, state.b);
      state.a = 0;
    }
  };
  const closure = (arg: unknown) => {
    state.count++;
    const current = state.a;
    state.a = 0;
    try {
      return exp(INVOKE_1)(current, state.b, arg);
    } catch (e) {
      throw withPanicMessage(e);
    } finally {
      state.a = current;
      release();
    }
  };
  return Object.assign(closure, { _wbg_cb_unref: release });
}

/** `new Promise(executor)` where the executor is a Rust closure that may only run synchronously. */
function rustPromise(a: number, b: number): Promise<unknown> {
  const state = { a, b };
  try {
    return new Promise((resolve, reject) => {
      const current = state.a;
      state.a = 0;
      try {
        exp(INVOKE_2)(current, state.b, resolve, reject);
      } catch (e) {
        throw withPanicMessage(e);
      } finally {
        state.a = current;
      }
    });
  } finally {
    state.a = state.b = 0;
  }
}

// Imports receive arbitrary JS values from Rust: read a property of one, or call one of its methods.
const prop = (x: unknown, key: string): unknown => (x as Record<string, unknown>)[key];
const invoke = (x: unknown, method: string, ...args: unknown[]): unknown =>
  (x as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
const isA = (ctor: abstract new (...args: never[]) => unknown) => (x: unknown) => {
  try {
    return x instanceof ctor;
  } catch {
    return false;
  }
};

// Long: the WebAssembly module's import object: one table of host functions.
function imports(): Record<string, (...args: never[]) => unknown> {
  const g = globalThis as unknown as Record<string, unknown>;
  return {
    __wbg_isArray_96e0af9891d0945d: (x: unknown) => Array.isArray(x),
    __wbg_length_cdd215e10d9dd507: (x: unknown) => prop(x, "length"),
    __wbg_length_69bca3cb64fc8748: (x: unknown) => prop(x, "length"),
    __wbg_set_3f1d0b984ed272ed: (o: unknown, k: PropertyKey, v: unknown) => void ((o as Record<PropertyKey, unknown>)[k] = v),
    __wbg_set_c213c871859d6500: (o: unknown[], i: number, v: unknown) => void (o[i >>> 0] = v),
    __wbg_set_907fb406c34a251d: (m: Map<unknown, unknown>, k: unknown, v: unknown) => m.set(k, v),
    __wbg_set_c2abbebe8b9ebee1: catching((o: object, k: PropertyKey, v: unknown) => Reflect.set(o, k, v)),
    __wbg_new_e17d9f43105b08be: () => [],
    __wbg_new_1acc0b6eea89d040: () => ({}),
    __wbg_new_68651c719dcda04e: () => new Map(),
    __wbg_new_0_f9740686d739025c: () => new Date(),
    __wbg_new_5a79be3ab53b8aa5: (buf: ArrayBuffer) => new Uint8Array(buf),
    __wbg_new_with_length_01aa0dc35aa13543: (n: number) => new Uint8Array(n >>> 0),
    __wbg_new_from_slice_92f4d78ca282a2d2: (p: number, n: number) => new Uint8Array(bytes(p, n)),
    __wbg_new_23fa8b12a239f036: (p: number, n: number, fp: number, fn: number) => new RegExp(readString(p, n), readString(fp, fn)),
    __wbg_new_a7442b4b19c1a356: (p: number, n: number) => new Error(readString(p, n)),
    __wbg_Error_e83987f665cf5504: (p: number, n: number) => new Error(readString(p, n)),
    __wbg_new_no_args_ee98eee5275000a4: (p: number, n: number) => new Function(readString(p, n)),
    __wbg_new_3c3d849046688a66: rustPromise,
    __wbg___wbindgen_is_object_c818261d21f283a4: (x: unknown) => typeof x === "object" && x !== null,
    __wbg___wbindgen_is_undefined_2d472862bd29a478: (x: unknown) => x === undefined,
    __wbg___wbindgen_is_string_fbb76cb2940daafd: (x: unknown) => typeof x === "string",
    __wbg___wbindgen_is_function_ee8a6c5833c90377: (x: unknown) => typeof x === "function",
    __wbg___wbindgen_is_bigint_cb320707dcd35f0b: (x: unknown) => typeof x === "bigint",
    __wbg___wbindgen_in_bb933bd9e1b3bc0f: (k: PropertyKey, o: object) => k in o,
    __wbg___wbindgen_jsval_loose_eq_b664b38a2f582147: (a: unknown, b: unknown) => a == b,
    __wbg___wbindgen_jsval_eq_6b13ab83478b1c50: (a: unknown, b: unknown) => a === b,
    __wbg___wbindgen_boolean_get_6d5a1ee65bab5f68: (x: unknown) => (typeof x === "boolean" ? (x ? 1 : 0) : 0xffffff),
    __wbg___wbindgen_number_get_a20bf9b85341449d: (ret: number, x: unknown) => {
      view().setFloat64(ret + 8, typeof x === "number" ? x : 0, true);
      view().setInt32(ret, typeof x === "number" ? 1 : 0, true);
    },
    __wbg___wbindgen_bigint_get_as_i64_f3ebc5a755000afd: (ret: number, x: unknown) => {
      view().setBigInt64(ret + 8, typeof x === "bigint" ? x : 0n, true);
      view().setInt32(ret, typeof x === "bigint" ? 1 : 0, true);
    },
    __wbg___wbindgen_string_get_e4f06c90489ad01b: (ret: number, x: unknown) => writeString(ret, typeof x === "string" ? x : undefined),
    __wbg___wbindgen_debug_string_df47ffb5e35e6763: (ret: number, x: unknown) => writeString(ret, debugString(x)),
    __wbg_String_8f0eb39a4a4c2f66: (ret: number, x: unknown) => writeString(ret, String(x)),
    __wbg___wbindgen_throw_b855445ff6a94295: (p: number, n: number) => {
      throw new Error(readString(p, n));
    },
    __wbg_isSafeInteger_d216eda7911dde36: (x: unknown) => Number.isSafeInteger(x),
    __wbg_Number_bb48ca12f395cd08: (x: unknown) => Number(x),
    __wbg_get_7bed016f185add81: (o: unknown[], i: number) => o[i >>> 0],
    __wbg_get_with_ref_key_1dc361bd10053bfe: (o: Record<PropertyKey, unknown>, k: PropertyKey) => o[k],
    __wbg_get_ece95cf6585650d9: catching((o: Record<PropertyKey, unknown>, k: PropertyKey) => o[k]),
    __wbg_get_efcb449f58ec27c2: catching((o: object, k: PropertyKey) => Reflect.get(o, k)),
    __wbg_has_787fafc980c3ccdb: catching((o: object, k: PropertyKey) => Reflect.has(o, k)),
    __wbg_iterator_e5822695327a3c39: () => Symbol.iterator,
    __wbg_next_2c826fe5dfec6b6a: (it: unknown) => prop(it, "next"),
    __wbg_next_020810e0ae8ebcb0: catching((it: unknown) => invoke(it, "next")),
    __wbg_done_2042aa2670fb1db1: (r: unknown) => prop(r, "done"),
    __wbg_value_692627309814bb8c: (r: unknown) => prop(r, "value"),
    __wbg_entries_e171b586f8f6bdbf: (o: object) => Object.entries(o),
    __wbg_push_df81a39d04db858c: (a: unknown[], v: unknown) => a.push(v),
    __wbg_valueOf_9eee4828c11458ca: (x: unknown) => invoke(x, "valueOf"),
    __wbg_instanceof_Map_8579b5e2ab5437c7: isA(Map),
    __wbg_instanceof_Promise_001fdd42afa1b7ef: isA(Promise),
    __wbg_instanceof_Uint8Array_20c8e73002f7af98: isA(Uint8Array),
    __wbg_instanceof_ArrayBuffer_70beb1189ca63b38: isA(ArrayBuffer),
    __wbg_set_message_f18c00fbf3b3e80e: (p: number, n: number) => void (lastPanic = readString(p, n)),
    __wbg_schemaengine_new: (ptr: number) => wrapEngine(ptr >>> 0),
    __wbg_getTime_14776bfb48a1bff9: (d: Date) => d.getTime(),
    __wbg_now_793306c526e2e3b6: () => Date.now(),
    __wbg_now_7fd00a794a07d388: (x: unknown) => invoke(x, "now"),
    __wbg_exec_fdeec61d47617356: (re: RegExp, p: number, n: number) => optionalRef(re.exec(readString(p, n))),
    __wbg_set_name_d94846a29e626702: (o: { name: string }, p: number, n: number) => void (o.name = readString(p, n)),
    __wbg_crypto_805be4ce92f1e370: (x: unknown) => prop(x, "crypto"),
    __wbg_msCrypto_2ac4d17c4748234a: (x: unknown) => prop(x, "msCrypto"),
    __wbg_process_5cff2739921be718: (x: unknown) => prop(x, "process"),
    __wbg_versions_a8e5a362e1f16442: (x: unknown) => prop(x, "versions"),
    __wbg_node_ecc8306b9857f33d: (x: unknown) => prop(x, "node"),
    __wbg_require_0c566c6f2eef6c79: catching(() => require),
    __wbg_getRandomValues_f6a868620c8bab49: catching((c: Crypto, a: Uint8Array) => void c.getRandomValues(a)),
    __wbg_randomFillSync_d3c85af7e31cf1f8: catching((c: unknown, a: Uint8Array) => void invoke(c, "randomFillSync", a)),
    __wbg_subarray_480600f3d6a9f26c: (a: Uint8Array, s: number, e: number) => a.subarray(s >>> 0, e >>> 0),
    __wbg_prototypesetcall_2a6620b6922694b2: (p: number, n: number, src: Uint8Array) => bytes(p, n).set(src),
    __wbg_call_e762c39fa8ea36bf: catching((f: (this: unknown) => unknown, self: unknown) => f.call(self)),
    __wbg_call_525440f72fbfc0ea: catching((f: (this: unknown, a: unknown) => unknown, self: unknown, a: unknown) => f.call(self, a)),
    __wbg_static_accessor_GLOBAL_89e1d9ac6a1b250e: () => optionalRef(g.global),
    __wbg_static_accessor_GLOBAL_THIS_8b530f326a9e48ac: () => optionalRef(globalThis),
    __wbg_static_accessor_WINDOW_b45bfc5a37f6cfa2: () => optionalRef(g.window),
    __wbg_static_accessor_SELF_6fdf4b64710cc91b: () => optionalRef(g.self),
    __wbg_setTimeout_5d6a1d4fc51ea450: (f: () => void, ms: number) => setTimeout(f, ms >>> 0),
    __wbg__wbg_cb_unref_2454a539ea5790d9: (f: unknown) => invoke(f, "_wbg_cb_unref"),
    __wbg_then_4f46f6544e6b4a28: (p: Promise<unknown>, f: (v: unknown) => unknown) => p.then(f),
    __wbg_then_70d05cf780a18d77: (p: Promise<unknown>, f: (v: unknown) => unknown, r: (e: unknown) => unknown) => p.then(f, r),
    __wbg_resolve_caf97c30b83f7053: (v: unknown) => Promise.resolve(v),
    __wbg_queueMicrotask_6d79674585219521: (f: () => void) => queueMicrotask(f),
    __wbg_queueMicrotask_5a8a9131f3f0b37b: (x: unknown) => prop(x, "queueMicrotask"),
    __wbindgen_init_externref_table: () => {
      const table = wasm!.__wbindgen_externrefs;
      const offset = table.grow(4);
      table.set(0, undefined);
      [undefined, null, true, false].forEach((v, i) => table.set(offset + i, v));
    },
    // Casts from Rust values; each hash names one conversion in wasm-bindgen's intrinsic table.
    __wbindgen_cast_2241b6af4c4b2941: (p: number, n: number) => readString(p, n),
    __wbindgen_cast_4625c577ab2ec9ee: (x: bigint) => BigInt.asUintN(64, x),
    __wbindgen_cast_9ae0607507abb057: (x: bigint) => x,
    __wbindgen_cast_d6cd19b81560fd6e: (x: number) => x,
    __wbindgen_cast_cb9088102bce6b30: (p: number, n: number) => bytes(p, n),
    __wbindgen_cast_a9993887db3ced61: rustClosure,
  };
}

function debugString(x: unknown): string {
  if (x instanceof Error) return `${x.name}: ${x.message}\n${x.stack ?? ""}`;
  if (typeof x === "string") return JSON.stringify(x);
  try {
    return typeof x === "object" && x !== null ? JSON.stringify(x) : String(x);
  } catch {
    return Object.prototype.toString.call(x);
  }
}

const engines = new FinalizationRegistry<number>((ptr) => exp("__wbg_schemaengine_free")(ptr, 1));

function wrapEngine(ptr: number): WasmSchemaEngine {
  const engine = {
    ptr,
    diff: (params: unknown) => withPanic(() => exp("schemaengine_diff")(engine.ptr, params)),
    free() {
      if (engine.ptr === 0) return;
      engines.unregister(engine);
      exp("__wbg_schemaengine_free")(engine.ptr, 0);
      engine.ptr = 0;
    },
  };
  engines.register(engine, ptr, engine);
  return engine as WasmSchemaEngine;
}

/** A Rust panic surfaces as a bare "unreachable" trap: attach the panic message it recorded. */
function withPanicMessage(e: unknown): unknown {
  return e instanceof WebAssembly.RuntimeError && lastPanic ? new Error(`schema engine panicked: ${lastPanic}`, { cause: e }) : e;
}

async function withPanic<T>(call: () => unknown): Promise<T> {
  try {
    return (await call()) as T;
  } catch (e) {
    throw withPanicMessage(e);
  }
}

function load(): void {
  if (wasm) return;
  const compiled = new WebAssembly.Module(readFileSync(SCHEMA_ENGINE_WASM_PATH));
  const provided = imports();
  const missing = WebAssembly.Module.imports(compiled).filter((i) => !(i.name in provided));
  if (missing.length > 0) {
    throw new Error(
      `${SCHEMA_ENGINE_WASM_PATH} expects imports this loader does not provide (${missing.map((i) => i.name).join(", ")}); ` +
        "it was written for prisma@7.10.0: update scripts/lib/schema-engine-wasm.ts for the installed Prisma.",
    );
  }
  const instance = new WebAssembly.Instance(compiled, { "./schema_engine_bg.js": provided });
  wasm = instance.exports as unknown as Exports;
  exp("__wbindgen_start")();
}

/**
 * Starts a schema engine that reaches its database through `adapter`: an error-capturing,
 * migration-aware driver adapter factory (`bindMigrationAwareSqlAdapterFactory(...)`).
 */
export async function startSchemaEngine(adapter: unknown): Promise<WasmSchemaEngine> {
  load();
  // No datamodels: `diff` takes its schemas as parameters. The engine's debug log is not needed.
  return withPanic(() => exp("schemaengine_new")({ datamodels: undefined }, () => undefined, adapter));
}
