// The example runners over real loopback HTTP: what the host tests rely on them to send.
import { afterEach, describe, expect, it } from "vitest";
import { manifestSchema } from "../../server/protocols/runner/manifest";
import { MAX_RESULT_BYTES } from "../../server/protocols/runner/result";
import { ndjsonLines } from "../../sdk/runner/ndjson";
import { testRunContext } from "../../sdk/runner/testing";
import { BAD_MANIFESTS_INVALID_IDS, BAD_MANIFESTS_VALID_ID, startBadManifestsRunner } from "./bad-manifests";
import { CANCELLABLE_RUNNER_ID, startCancellableRunner } from "./cancellable";
import { ECHO_RUNNER_ID, startEchoRunner } from "./echo";
import { HANGING_RUNNER_ID, startHangingRunner } from "./hanging";
import { MISBEHAVING_EXPECTED_TEXT, MISBEHAVING_RUNNER_ID, MISBEHAVING_STATE_KEY, MISBEHAVING_UNKNOWN_TYPE, startMisbehavingRunner } from "./misbehaving";
import type { StartedRunner } from "./start";

const secret = "examples-secret-0123456789";
const started: StartedRunner[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.close()));
});
async function start<T extends StartedRunner>(fn: (o: { secret: string }) => Promise<T>): Promise<T> {
  const r = await fn({ secret });
  started.push(r);
  return r;
}

const auth = { authorization: `Bearer ${secret}` };
const listRunners = async (url: string) => ((await (await fetch(`${url}/runners`, { headers: auth })).json()) as { runners: unknown[] }).runners;
const run = (url: string, runnerId: string, text: string, signal?: AbortSignal) => {
  const context = testRunContext(text);
  const res = fetch(`${url}/run`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ runner_id: runnerId, runner_name: "default", context }),
    signal,
  });
  return { runId: context.run_id, res };
};
async function lines(res: Promise<Response>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of ndjsonLines((await res).body!)) out.push(line);
  return out;
}

describe("example runners", () => {
  it.each([
    [startEchoRunner, ECHO_RUNNER_ID],
    [startMisbehavingRunner, MISBEHAVING_RUNNER_ID],
    [startHangingRunner, HANGING_RUNNER_ID],
    [startCancellableRunner, CANCELLABLE_RUNNER_ID],
  ])("serves a strictly valid manifest (%#)", async (fn, id) => {
    const { url } = await start(fn);
    const runners = await listRunners(url);
    expect(runners).toHaveLength(1);
    expect(manifestSchema.parse(runners[0]).id).toBe(id);
  });

  it("echo streams the input back in several deltas, then completes", async () => {
    const { url } = await start(startEchoRunner);
    const { runId, res } = run(url, ECHO_RUNNER_ID, "the quick brown fox");
    const results = (await lines(res)).map((l) => JSON.parse(l));
    const deltas = results.filter((r) => r.type === "message.delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.data.chunk.content).join("")).toBe("the quick brown fox");
    expect(results.slice(-2).map((r) => r.type)).toEqual(["message.completed", "run.completed"]);
    expect(results.at(-2).data.message.content).toBe("the quick brown fox");
    expect(results.every((r) => r.run_id === runId)).toBe(true);
  });

  it("misbehaving sends each kind of bad line, then a valid ending", async () => {
    const { url } = await start(startMisbehavingRunner);
    const { runId, res } = run(url, MISBEHAVING_RUNNER_ID, "go");
    const raw = await lines(res);
    expect(() => JSON.parse(raw[0]!)).toThrow();
    const parsed = raw.slice(1).map((l) => ({ size: Buffer.byteLength(l), ...JSON.parse(l) }));
    expect(parsed[0]!.run_id).not.toBe(runId);
    expect(parsed[1]!.sequence).toBe(parsed[2]!.sequence);
    expect(parsed[3]!.type).toBe(MISBEHAVING_UNKNOWN_TYPE);
    expect(parsed[4]!.size).toBeGreaterThan(MAX_RESULT_BYTES);
    expect(parsed[5]!.data).toMatchObject({ scope: "galaxy", key: MISBEHAVING_STATE_KEY });
    const valid = parsed.slice(1).filter((r) => r.size <= MAX_RESULT_BYTES && r.type === "message.delta");
    const applied = [...new Map(valid.map((r) => [r.sequence, r.data.chunk.content])).values()].join("");
    expect(applied).toBe(MISBEHAVING_EXPECTED_TEXT);
    expect(parsed.at(-1)!.type).toBe("run.completed");
  });

  it("hanging sends one delta and records the abort when the connection closes", async () => {
    const runner = await start(startHangingRunner);
    const client = new AbortController();
    const { res } = run(runner.url, HANGING_RUNNER_ID, "x", client.signal);
    const reader = (await res).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("message.delta");
    expect(runner.aborts.count).toBe(0);
    client.abort();
    await runner.aborts.waitFor(1);
  });

  it("cancellable answers run.failed cancelled when the server cancels it and records the cancel", async () => {
    const runner = await start(startCancellableRunner);
    const { res } = run(runner.url, CANCELLABLE_RUNNER_ID, "x");
    const reader = (await res).body!.getReader();
    await reader.read();
    const closing = runner.close();
    started.splice(started.indexOf(runner), 1);
    let rest = "";
    for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
    await closing;
    expect(runner.cancels.count).toBe(1);
    expect(JSON.parse(rest.trim())).toMatchObject({ type: "run.failed", data: { code: "cancelled" } });
  });

  it("bad-manifests lists one valid manifest among invalid ones and runs the valid one", async () => {
    const { url } = await start(startBadManifestsRunner);
    const runners = (await listRunners(url)) as { id: string }[];
    expect(runners.map((r) => r.id)).toEqual([BAD_MANIFESTS_VALID_ID, ...BAD_MANIFESTS_INVALID_IDS]);
    expect(runners.map((r) => manifestSchema.safeParse(r).success)).toEqual([true, false, false, false]);
    expect((await fetch(`${url}/runners`)).status).toBe(401);
    const results = (await lines(run(url, BAD_MANIFESTS_VALID_ID, "still works").res)).map((l) => JSON.parse(l));
    expect(results.at(-1).type).toBe("run.completed");
  });
});
