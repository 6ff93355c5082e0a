import path from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { generateRequest, random, routeEndpoints, trpcProcedures, type Caller, type FuzzRequest } from "@/test/fuzz-requests";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";

// Generated requests across every endpoint (the route files, tRPC's procedures, Auth.js), from
// a seed printed below: FUZZ_SEED=<seed> reproduces a run. Hostile requests (NUL, lone
// surrogates, deep nesting, invalid UTF-8, malformed or NUL paths and queries) come first and
// must write nothing for the fuzz's own user; then mutated bodies, wrong methods and content
// types. No request may get a 5xx, or hang.

const HOSTILE = 6_000;
const ODD = 4_000;
const CONCURRENCY = 24;
const REQUEST_BOUND_MS = 20_000;

const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const root = path.resolve(import.meta.dirname, "../..");

let caller: Caller;
let userId: string;

/** Rows the fuzz user owns, per table: by user, or through the user's threads or runs. */
async function rowsOwned(): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
        where table_schema = current_schema() and column_name in ('user_id', 'thread_id', 'run_id')
        order by table_name, array_position(array['user_id', 'thread_id', 'run_id'], column_name::text)`,
    );
    const owner = new Map<string, string>();
    for (const { table_name, column_name } of columns) if (!owner.has(table_name)) owner.set(table_name, column_name);
    const counts: Record<string, number> = {};
    for (const [table, column] of owner) {
      const scope =
        column === "user_id" ? "user_id = $1" : column === "thread_id" ? "thread_id::text in (select id::text from threads where user_id = $1)" : "run_id::text in (select id::text from runs where user_id = $1)";
      const { rows } = await client.query<{ n: string }>(`select count(*) as n from "${table}" where ${scope}`, [userId]);
      counts[table] = Number(rows[0]!.n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

type Outcome = { request: FuzzRequest; status: number; detail: string };

async function send(request: FuzzRequest): Promise<Outcome> {
  try {
    const res = await fetch(`${baseUrl()}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body as BodyInit | undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    // A stream (a run's events) is not followed: the status is the answer here.
    const detail = res.status >= 500 ? (await res.text()).slice(0, 300) : "";
    if (!res.bodyUsed) await res.body?.cancel();
    return { request, status: res.status, detail };
  } catch (err) {
    return { request, status: 0, detail: String(err) };
  }
}

async function fuzz(count: number, hostile: boolean, r: () => number): Promise<Outcome[]> {
  const endpoints = routeEndpoints(root);
  const procedures = trpcProcedures(root);
  const requests = Array.from({ length: count }, () => generateRequest(r, endpoints, procedures, caller, hostile));
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) outcomes.push(await send(requests[next++]!));
    }),
  );
  return outcomes;
}

const failures = (outcomes: Outcome[]) =>
  outcomes.filter((o) => o.status === 0 || o.status >= 500).map((o) => `${o.status} ${o.request.method} ${o.request.path.slice(0, 120)} (${o.request.label}): ${o.detail}`);

beforeAll(async () => {
  console.log(`fuzz seed: ${seed} (FUZZ_SEED=${seed} reproduces this run)`);
  const user = await createTestUser();
  userId = user.id;
  const cookie = await signInOverHttp(user.email, user.password);
  if (!cookie) throw new Error("the fuzz user could not sign in");
  caller = { apiKey: user.apiKey, cookie };
});

describe(`fuzzing every endpoint (seed ${seed})`, () => {
  const r = random(seed);

  it(`answers ${HOSTILE} hostile requests with no 5xx, and writes nothing for them`, { timeout: 120_000 }, async () => {
    const before = await rowsOwned();
    const outcomes = await fuzz(HOSTILE, true, r);
    expect(failures(outcomes)).toEqual([]);
    expect(await rowsOwned()).toEqual(before);
    // Refused, not served: what a hostile request carries is never taken. (tRPC's and Auth.js's
    // carry theirs in their own input, which a procedure may ignore; they count above.)
    const served = outcomes.filter((o) => o.status < 300 && !/^(tRPC|Auth\.js)/.test(o.request.label));
    expect(served.map((o) => `${o.status} ${o.request.method} ${o.request.path} (${o.request.label})`)).toEqual([]);
  });

  it(`answers ${ODD} mutated requests (types, sizes, methods, content types) with no 5xx`, { timeout: 120_000 }, async () => {
    expect(failures(await fuzz(ODD, false, r))).toEqual([]);
  });
});
