import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";

// The hostile inputs a probe found answering 500, each now a 400 that says what is wrong, with
// nothing written: the user's thread and run counts stay where they were.

let apiKey: string;
let userId: string;

async function ownedRows(): Promise<number> {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("select (select count(*) from threads where user_id = $1) + (select count(*) from runs where user_id = $1) as n", [userId]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = bearer(apiKey)) =>
  fetch(`${baseUrl()}${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: body as BodyInit });

beforeAll(async () => {
  const user = await createTestUser();
  apiKey = user.apiKey;
  userId = user.id;
});

describe("hostile input", () => {
  const text = (overrides: Record<string, unknown>) => JSON.stringify(runInput(overrides));

  it.each([
    ["a NUL in a message", () => text({ messages: [{ id: "m1", role: "user", content: "a\u0000b" }] }), /^messages\[0\]\.content: contains a NUL/],
    ["a lone surrogate in the thread id", () => text({ threadId: "t-\ud800" }), /^threadId: contains a lone UTF-16 surrogate/],
    ["JSON nested 20,000 deep", () => text({ state: { deep: 0 } }).replace('"deep":0', `"deep":${"[".repeat(20_000)}${"]".repeat(20_000)}`), /nested too deeply/],
    ["invalid UTF-8", () => Buffer.concat([Buffer.from(text({}).slice(0, 40)), Buffer.from([0xff]), Buffer.from(text({}).slice(40))]), /not valid UTF-8/],
  ])("%s: a run request answers 400 saying so, and writes nothing", async (_name, body, message) => {
    const before = await ownedRows();
    for (const path of ["/api/v1/agent/runs", "/api/v1/ag-ui"]) {
      const res = await post(path, body());
      expect(res.status, path).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code, path).toBe("BAD_REQUEST");
      expect(error.message, path).toMatch(message);
    }
    expect(await ownedRows()).toBe(before);
  });

  it("answers a malformed percent-escape in a path 400, with or without a key", async () => {
    for (const headers of [{}, bearer(apiKey)]) {
      const res = await fetch(`${baseUrl()}/api/v1/agent/runs/%ZZ`, { headers });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { code: "BAD_REQUEST", message: expect.stringContaining("malformed percent-escape") } });
    }
  });

  it("answers a NUL in a path parameter or a query 400 naming it", async () => {
    const cancel = await post("/api/v1/agent/process/%00/cancel", "{}");
    expect(cancel.status).toBe(400);
    expect(await cancel.json()).toMatchObject({ error: { code: "BAD_REQUEST", details: { field: "responseId" } } });
    const history = await fetch(`${baseUrl()}/api/v1/agent/history?threadId=%00`, { headers: bearer(apiKey) });
    expect(history.status).toBe(400);
    expect(await history.json()).toMatchObject({ error: { message: expect.stringMatching(/threadId.*NUL/) } });
  });

  it("answers the runner host API's hostile bodies in its own shape, not as a 5xx", async () => {
    const res = await post("/api/v1/runner-api/state/set", `{"run_id":"${"[".repeat(20_000)}"}`, { authorization: "Bearer not-a-runner" });
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBeGreaterThanOrEqual(400);
  });
});
