import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { extraServersForFile, startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer } from "@/test/helpers";
import { paced, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";
import { userAndAdmin, type Caller, type TestUser } from "@/test/trpc-callers";

// A rolling restart: two instances are told to stop (SIGTERM) one after the other while runs
// stream on both. Each hands its runs back as it stops, another instance goes on with them, and
// every run completes with one unbroken log; the stopping instances exit on their own. The console
// shows each run's executions: handed back by the stopping instances, the last one finished.
const servers = extraServersForFile(2);
let user: TestUser;
let admin: Caller;

// The console's API with an admin's principal given directly (no Auth.js session lookup).
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

beforeAll(async () => {
  ({ user, admin } = await userAndAdmin());
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
const verify = (list: BaseEvent[]) => lastValueFrom(verifyEvents()(from(list)).pipe(toArray()));

/** Starts a streaming run on `server` and resolves once its client has seen a few events. */
async function startStreaming(server: ExtraServer, text: string) {
  const body = runInput({}, paced(30, text));
  const res = await fetch(`${server.url}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const frames = readSse(res);
  for (let seen = 0; seen < 4; seen++) await frames.next();
  // What the original client goes on receiving until its instance stops.
  const rest = (async () => {
    for await (const frame of frames) void frame;
  })().catch(() => undefined);
  return { body, rest };
}

function stopped(server: ExtraServer): Promise<number | null> {
  return new Promise((resolve) => (server.child.exitCode !== null ? resolve(server.child.exitCode) : server.child.once("exit", (code) => resolve(code))));
}

describe("a rolling restart under load", () => {
  it("loses no run and no event: each stopping instance hands its runs back and exits", async () => {
    const text = words(60);
    const [first, second] = servers;
    const runs = await Promise.all([startStreaming(first!, text), startStreaming(first!, text), startStreaming(second!, text), startStreaming(second!, text)]);

    first!.child.kill("SIGTERM");
    expect(await stopped(first!)).toBe(0);
    const replacement = await startExtraServer();
    servers.push(replacement);
    second!.child.kill("SIGTERM");
    expect(await stopped(second!)).toBe(0);
    await Promise.all(runs.map((r) => r.rest));

    for (const { body } of runs) {
      expect(await waitForRunEnd(user.apiKey, body.runId, 60_000)).toMatchObject({ status: "completed", error: null });
      const log = await collectSse(
        await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(body.runId)}/events`, { headers: bearer(user.apiKey) }),
      );
      expect(log.map((f) => Number(f.id))).toEqual(log.map((_, i) => i + 1));
      const events = log.map((f) => JSON.parse(f.data) as BaseEvent & Record<string, unknown>);
      expect(await verify(events)).toHaveLength(events.length);
      expect(events.filter((e) => e.type === "RUN_STARTED")).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
      // The answer the run ends with is whole, whatever was cut off before it.
      const lastStart = events.findLast((e) => e.type === "TEXT_MESSAGE_START")!;
      const answer = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.messageId === lastStart.messageId).map((e) => e.delta).join("");
      expect(answer).toContain(text);

      // Its executions: each handed back by a stopping instance, the last one finished it.
      const [row] = (await admin.adminRuns.list({ threadId: body.threadId })).items;
      const { attempts } = await admin.adminRuns.get({ id: row!.id });
      expect(attempts.map((a) => a.endReason)).toEqual([...attempts.slice(1).map(() => "handed_off"), "finished"]);
      expect(new Set(attempts.map((a) => a.instance)).size).toBe(attempts.length);
    }
    // The first instance's runs were still streaming when it stopped: they moved.
    const moved = (await admin.adminRuns.list({ userEmail: user.email, attempts: "moved" })).items.map((r) => r.runId);
    expect(moved).toEqual(expect.arrayContaining([runs[0]!.body.runId, runs[1]!.body.runId]));
  }, 180_000);
});
