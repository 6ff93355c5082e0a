import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { extraServersForFile, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, paced, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";

// A run with shared state whose server is killed after the agent patched the state: the instance
// that takes it over goes on from the state the log holds (the patch is not applied twice), and the
// run's end keeps that state with the thread (docs/ag-ui.md, "Shared state").
const doomed = extraServersForFile(1);
let apiKey: string;

beforeAll(async () => {
  ({ apiKey } = await createTestUser());
});

function killed(server: ExtraServer): Promise<void> {
  server.child.kill("SIGKILL");
  return new Promise<void>((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve() : server.child.once("exit", () => resolve())));
}

describe("shared state across a takeover", () => {
  it("keeps the state the log holds, with each delta once", async () => {
    const patch = { operations: [{ op: "add", path: "/items/-", value: "b" }] };
    const body = runInput({ state: { items: ["a"] } }, paced(250, `[[call:update_state ${JSON.stringify(patch)}]] add b then talk for a while`));
    const res = await fetch(`${doomed[0]!.url}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    for await (const frame of readSse(res)) if ((JSON.parse(frame.data) as { type: string }).type === "STATE_DELTA") break;
    await killed(doomed[0]!);

    expect(await waitForRunEnd(apiKey, body.runId, 60_000)).toMatchObject({ status: "completed" });
    // Another instance finished it.
    expect((await getPool().query<{ attempt: number }>("select attempt from runs where run_id = $1", [body.runId])).rows).toEqual([{ attempt: 2 }]);
    const log = (await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(body.runId)}/events`, { headers: bearer(apiKey) }))).map(
      (f) => JSON.parse(f.data) as BaseEvent & Record<string, unknown>,
    );
    expect(await lastValueFrom(verifyEvents()(from(log)).pipe(toArray()))).toHaveLength(log.length);
    expect(log.filter((e) => e.type === "STATE_SNAPSHOT")).toHaveLength(1);
    expect(log.filter((e) => e.type === "STATE_DELTA")).toEqual([{ type: "STATE_DELTA", delta: patch.operations }]);
    const page = (await (await getJson(apiKey, `/api/v1/agent/history?threadId=${body.threadId}`)).json()) as { state?: unknown };
    expect(page.state).toEqual({ items: ["a", "b"] });
  }, 120_000);
});
