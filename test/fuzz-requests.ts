import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Requests for the fuzz test (server/http/fuzz.integration-test.ts), from a seed: the same seed
// gives the same requests. Every endpoint comes from the route files themselves (app/**/route.ts)
// plus tRPC's procedures and Auth.js's routes; each request starts from a plausible body for its
// endpoint and is then mutated. `hostile` requests carry what must be refused whoever sends them
// (they may never write a row); the others only must not fail the server.

export type FuzzRequest = { method: string; path: string; headers: Record<string, string>; body?: Uint8Array | string; hostile: boolean; label: string };
export type Caller = { apiKey: string; cookie: string };

/** mulberry32: small, seedable, good enough to pick mutations. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Endpoint = { method: string; path: string };

/** Every method and path the app's route files serve (Next's segment syntax). */
export function routeEndpoints(root: string): Endpoint[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name === "route.ts" ? [`${dir}/${e.name}`] : []));
  return [...walk("app/api"), ...walk("app/storage")].flatMap((file) => {
    const source = readFileSync(path.join(root, file), "utf8");
    const routePath = file.slice("app".length, -"/route.ts".length);
    const methods = [...source.matchAll(/^export const (GET|POST|PUT)\b/gm)].map((m) => m[1]!);
    // The adapters (tRPC, Auth.js) export their handlers under other names: they are fuzzed below.
    return methods.map((method) => ({ method, path: routePath }));
  });
}

/** `name.procedure` for each tRPC procedure, read from the routers. */
export function trpcProcedures(root: string): string[] {
  const rootSource = readFileSync(path.join(root, "server/trpc/root.ts"), "utf8");
  const routers = [...rootSource.matchAll(/^\s+(\w+): (\w+),$/gm)].map((m) => ({ key: m[1]!, name: m[2]! }));
  const imports = new Map([...rootSource.matchAll(/import \{ (\w+) \} from "\.\/routers\/([\w-]+)"/g)].map((m) => [m[1]!, m[2]!]));
  return routers.flatMap(({ key, name }) => {
    const file = imports.get(name);
    if (!file) return [];
    const source = readFileSync(path.join(root, `server/trpc/routers/${file}.ts`), "utf8");
    return [...source.matchAll(/^\s+(\w+): (?:admin|protected|public)Procedure/gm)].map((m) => `${key}.${m[1]}`);
  });
}

const uuid = (r: () => number) =>
  "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => Math.floor(r() * 16).toString(16));

function plausibleBody(path: string, r: () => number): unknown {
  const text = "hello fuzz";
  const runInput = () => ({
    threadId: uuid(r),
    runId: `run-${uuid(r)}`,
    state: {},
    messages: [{ id: `m-${uuid(r).slice(0, 8)}`, role: "user", content: text }],
    tools: [],
    context: [],
    forwardedProps: {},
  });
  if (path === "/api/v1/agent/runs" || path === "/api/v1/agent/run" || path === "/api/v1/ag-ui") return runInput();
  if (path === "/api/v1/agent/process") return { input: [{ role: "user", content: [{ type: "text", text }] }], stream: false, session_id: uuid(r) };
  if (path === "/api/v1/agent/attachments/presign") return { mime_type: "image/png", size: 68, threadId: uuid(r) };
  if (path.startsWith("/api/v1/admin/knowledge")) return { title: "fuzz", text };
  if (path.startsWith("/api/v1/runner-api")) return { run_id: uuid(r), key: "k", value: { a: text } };
  return { note: text };
}

const HOSTILE_SEGMENTS = ["%ZZ", "%E0%A4%A", "%00", "%ED%A0%80", "a%00b", "%", "%C0%AF", "%FF"];
const ODD_SEGMENTS = ["..%2F..%2Fetc", "x".repeat(300), "%20", "🙂", "run-%E2%9C%93"];

function fillPath(template: string, r: () => number, hostile: boolean): string {
  return template.replace(/\[(\.\.\.)?(\w+)\]/g, () => {
    if (hostile) return pick(r, HOSTILE_SEGMENTS);
    return r() < 0.3 ? pick(r, ODD_SEGMENTS) : uuid(r);
  });
}

const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

/** Each string in `value`, as a path to it. */
function stringPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...at, i]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...at, k]));
  return [];
}

function setAt(value: unknown, at: (string | number)[], replace: (old: unknown) => unknown): unknown {
  if (at.length === 0) return replace(value);
  const [head, ...rest] = at;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head!] = setAt(copy[head!], rest, replace);
  return copy;
}

function deepValue(depth: number, array: boolean): string {
  return array ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** Body text with a string value changed into bytes that are not UTF-8. */
function badUtf8(json: string, r: () => number): Uint8Array {
  const bytes = Buffer.from(json);
  const at = json.indexOf("hello");
  const bad = pick(r, [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]]);
  const start = at < 0 ? 1 : Buffer.byteLength(json.slice(0, at));
  return Buffer.concat([bytes.subarray(0, start), Buffer.from(bad), bytes.subarray(start)]);
}

/** A mutation that must be refused: NUL, lone surrogate, deep nesting, bad UTF-8. */
function hostileBody(body: unknown, r: () => number): { body: string | Uint8Array; label: string } {
  const kind = Math.floor(r() * 5);
  const paths = stringPaths(body);
  const target = paths.length > 0 ? pick(r, paths) : [];
  if (kind === 0) return { body: JSON.stringify(setAt(body, target, (s) => `${String(s)}\u0000x`)), label: "NUL in a string" };
  if (kind === 1) return { body: JSON.stringify(setAt(body, target, (s) => `${String(s)}${pick(r, ["\ud800", "\udfff", "\ud83d"])}`)), label: "lone surrogate" };
  if (kind === 2) return { body: JSON.stringify({ ...(body as object), ["k\u0000"]: 1 }), label: "NUL in a key" };
  if (kind === 3) {
    const depth = pick(r, [65, 200, 5_000, 20_000]);
    const json = JSON.stringify({ ...(body as object), deep: 0 }).replace('"deep":0', `"deep":${deepValue(depth, r() < 0.5)}`);
    return { body: json, label: `nested ${depth} deep` };
  }
  return { body: badUtf8(JSON.stringify(body), r), label: "invalid UTF-8" };
}

/** A mutation a correct server may accept or refuse: changed types, missing fields, big strings. */
function oddBody(body: unknown, r: () => number): { body: string; label: string } {
  const kind = Math.floor(r() * 6);
  const paths = stringPaths(body);
  const target = paths.length > 0 ? pick(r, paths) : [];
  if (kind === 0) return { body: JSON.stringify(body), label: "as generated" };
  if (kind === 1) return { body: JSON.stringify(setAt(body, target, () => pick(r, [0, -1, 1e308, null, true, [], {}, [1, "a"], ""]))), label: "a changed type" };
  if (kind === 2) return { body: JSON.stringify(setAt(body, target, () => "x".repeat(pick(r, [1_000, 30_000])))), label: "a big string" };
  if (kind === 3) return { body: pick(r, ["", "null", "[]", "1", '"s"', "{", '{"a":}', "\ufeff{}"]), label: "not the expected JSON" };
  if (kind === 4) return { body: JSON.stringify(setAt(body, target, () => "emoji 🙂 and \\u escapes \u2028 \t")), label: "unusual characters" };
  const copy = { ...(body as Record<string, unknown>) };
  delete copy[pick(r, Object.keys(copy).concat("none"))];
  return { body: JSON.stringify(copy), label: "a missing field" };
}

/** One generated request. */
export function generateRequest(r: () => number, endpoints: Endpoint[], procedures: string[], caller: Caller, hostile: boolean): FuzzRequest {
  const authed = r() < 0.6;
  const auth: Record<string, string> = !authed ? {} : r() < 0.85 ? { authorization: `Bearer ${caller.apiKey}` } : { authorization: `Bearer dsp_${uuid(r)}` };
  const where = r();
  // tRPC: the fuzz user is no admin, and hostile input stays in its strings.
  if (where < 0.12) {
    const procedure = pick(r, procedures);
    const input = hostile ? pick(r, [{ id: "a\u0000" }, { title: "\ud800" }, { cursor: "%ZZ" }]) : pick(r, [{}, { id: uuid(r) }, { limit: -1 }, null]);
    const headers = { ...(authed ? { cookie: caller.cookie } : {}) };
    if (r() < 0.5) return { method: "GET", path: `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, headers, hostile, label: `tRPC query ${procedure}` };
    return { method: "POST", path: `/api/trpc/${procedure}`, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ json: input }), hostile, label: `tRPC mutation ${procedure}` };
  }
  if (where < 0.16) {
    const route = pick(r, ["/api/auth/session", "/api/auth/csrf", "/api/auth/providers", "/api/auth/callback/credentials", "/api/auth/signout", "/api/auth/%ZZ"]);
    const form = new URLSearchParams({ email: hostile ? "a\u0000@x" : "fuzz@x", password: "wrong", csrfToken: "x" }).toString();
    return { method: route.includes("callback") || route.includes("signout") ? "POST" : "GET", path: route, headers: { "content-type": "application/x-www-form-urlencoded" }, body: route.includes("callback") ? form : undefined, hostile, label: `Auth.js ${route}` };
  }
  const endpoint = pick(r, endpoints);
  const base = plausibleBody(endpoint.path, r);
  const headers: Record<string, string> = { ...auth, "content-type": "application/json" };
  if (hostile) {
    const how = r();
    if (how < 0.3 && endpoint.path.includes("[")) return { method: endpoint.method, path: fillPath(endpoint.path, r, true), headers, body: endpoint.method === "GET" ? undefined : JSON.stringify(base), hostile, label: "hostile path" };
    // A GET has no body to carry it: its path, else its query.
    if (how < 0.4 || (endpoint.method === "GET" && !endpoint.path.includes("["))) {
      return { method: endpoint.method, path: `${fillPath(endpoint.path, r, false)}?q=${pick(r, ["%00", "a%00", "%00%ZZ"])}`, headers, body: endpoint.method === "GET" ? undefined : JSON.stringify(base), hostile, label: "hostile query" };
    }
    if (endpoint.method === "GET") return { method: "GET", path: fillPath(endpoint.path, r, true), headers, hostile, label: "hostile path" };
    const mutated = hostileBody(base, r);
    return { method: endpoint.method, path: fillPath(endpoint.path, r, false), headers, body: mutated.body, hostile, label: mutated.label };
  }
  const how = r();
  const method = how < 0.08 ? pick(r, ["DELETE", "PATCH", "PUT", "GET", "POST"]) : endpoint.method;
  if (how >= 0.08 && how < 0.16) headers["content-type"] = pick(r, ["text/plain", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""]);
  const mutated = oddBody(base, r);
  return { method, path: fillPath(endpoint.path, r, false), headers, body: method === "GET" ? undefined : mutated.body, hostile, label: method === endpoint.method ? mutated.label : "another method" };
}
