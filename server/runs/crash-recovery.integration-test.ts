import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { extraServersForFile, startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer } from "@/test/helpers";
import { getJson, paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse, type SseFrame } from "@/test/sse";
import { userAndAdmin, type Caller, type TestUser } from "@/test/trpc-callers";

// A server killed mid-run (kill -9: no chance to write anything more). Every event a client
// received from it stays in the log with the same id and content; within seconds of its missed
// heartbeats another instance takes the run over, closes the answer it left half-streamed, asks
// the model again, and the run completes. A client following on the surviving instance keeps its
// connection; one that followed the dead one rejoins with Last-Event-ID. The console shows both
// executions: the dead instance's, ended by its expired lease, and the one that finished the run.
// The first is killed in the first test; the last test starts two more.
const doomed = extraServersForFile(1);
let user: TestUser;
let admin: Caller;

// The console's API with an admin's principal given directly (no Auth.js session lookup).
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

beforeAll(async () => {
  ({ user, admin } = await userAndAdmin());
});

function killed(server: ExtraServer): Promise<void> {
  server.child.kill("SIGKILL");
  return new Promise<void>((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve() : server.child.once("exit", () => resolve())));
}

/** Starts a run on `server` and reads its stream until `until` says stop; the frames received. */
async function streamUntil(server: ExtraServer, body: unknown, until: (event: { type: string }, received: number) => boolean): Promise<SseFrame[]> {
  const res = await fetch(`${server.url}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const received: SseFrame[] = [];
  for await (const frame of readSse(res)) {
    received.push(frame);
    if (until(JSON.parse(frame.data) as { type: string }, received.length)) break;
  }
  return received;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

function events(key: string, runId: string, lastEventId?: string): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, {
    headers: { ...bearer(key), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });
}

const parse = (frames: SseFrame[]) => frames.map((f) => JSON.parse(f.data) as BaseEvent & Record<string, unknown>);
const verify = (list: BaseEvent[]) => lastValueFrom(verifyEvents()(from(list)).pipe(toArray()));

describe("a server killed mid-run", () => {
  it("loses no event a client received; another instance takes the run over and completes it", async () => {
    const text = words(120);
    const body = runInput({}, paced(40, text));
    const received = await streamUntil(doomed[0]!, body, (_, count) => count === 12);
    // A second client follows the run from the instance that survives.
    const follower = collectSse(await events(user.apiKey, body.runId));
    await killed(doomed[0]!);

    const end = await waitForRunEnd(user.apiKey, body.runId, 60_000);
    expect(end).toMatchObject({ status: "completed", error: null });

    const log = await collectSse(await events(user.apiKey, body.runId));
    expect(log.slice(0, received.length)).toEqual(received);
    expect(log.map((f) => Number(f.id))).toEqual(log.map((_, i) => i + 1));
    const all = parse(log);
    // One run, as the official client checks it: the half-streamed answer is closed, a new one follows.
    expect(await verify(all)).toHaveLength(all.length);
    expect(all.filter((e) => e.type === "RUN_STARTED")).toHaveLength(1);
    expect(all.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    const starts = all.filter((e) => e.type === "TEXT_MESSAGE_START");
    expect(starts).toHaveLength(2);
    const second = all.filter((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.messageId === starts[1]!.messageId).map((e) => e.delta).join("");
    expect(second).toContain(text);

    // The follower on the surviving instance saw the whole run on one connection.
    expect(await follower).toEqual(log);
    // Resuming from the last id received gives the rest of the log and ends.
    expect(await collectSse(await events(user.apiKey, body.runId, received.at(-1)!.id!))).toEqual(log.slice(received.length));

    // The thread keeps the completed answer once, not the half-streamed one.
    const history = (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${body.threadId}`)).json()) as { messages: { role: string; content: unknown }[] };
    const answers = history.messages.filter((m) => m.role === "assistant");
    expect(answers).toHaveLength(1);
    expect(JSON.stringify(answers[0]!.content)).toContain(text);

    // The console: the run is listed among those whose lease expired, with its two executions.
    const listed = await admin.adminRuns.list({ threadId: body.threadId, attempts: "lease_expired" });
    expect(listed.items.map((r) => [r.runId, r.attempts])).toEqual([[body.runId, 2]]);
    const { attempts } = await admin.adminRuns.get({ id: listed.items[0]!.id });
    expect(attempts.map((a) => [a.attempt, a.endReason])).toEqual([[1, "lease_expired"], [2, "finished"]]);
    expect(attempts[0]!.instance).toContain(`:${doomed[0]!.child.pid}:`);
    expect(attempts[1]!.instance).not.toBe(attempts[0]!.instance);
    expect(attempts[0]!.endedAt!.getTime()).toBeLessThanOrEqual(attempts[1]!.startedAt.getTime());
    expect(attempts[1]!.endedAt).not.toBeNull();

    // The thread takes a new run.
    const next = runInput({ threadId: body.threadId }, "still there?");
    expect((await postRun(user.apiKey, next)).status).toBe(202);
    expect((await waitForRunEnd(user.apiKey, next.runId)).status).toBe("completed");
  }, 120_000);

  it("takes over a run killed before its first token, and one killed between its tool call and the call's result", async () => {
    doomed.push(...(await Promise.all([startExtraServer(), startExtraServer()])));
    const [early, midTool] = doomed.slice(1) as [ExtraServer, ExtraServer];
    const beforeToken = runInput({}, paced(400, words(5)));
    const betweenToolAndResult = runInput({}, `[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]] ${words(5)}`);
    // Killed as soon as the run started (its model's first token is 400 ms away), and as soon as
    // the tool call's arguments ended (the call runs in a child process of the doomed server).
    const cut = async (server: ExtraServer, body: unknown, at: string) => {
      const received = await streamUntil(server, body, (e) => e.type === at);
      await killed(server);
      return received;
    };
    const [sawEarly, sawMidTool] = await Promise.all([cut(early, beforeToken, "RUN_STARTED"), cut(midTool, betweenToolAndResult, "TOOL_CALL_END")]);

    // The fake model answers the first with its words, the second with the tool's result.
    for (const [body, received, answer] of [[beforeToken, sawEarly, words(5)], [betweenToolAndResult, sawMidTool, 'Tool said: {"module":"calendar","method":"read"']] as const) {
      expect(await waitForRunEnd(user.apiKey, body.runId, 60_000)).toMatchObject({ status: "completed", error: null });
      const log = await collectSse(await events(user.apiKey, body.runId));
      expect(log.slice(0, received.length)).toEqual(received);
      const all = parse(log);
      expect(await verify(all)).toHaveLength(all.length);
      expect(all.filter((e) => e.type === "RUN_STARTED")).toHaveLength(1);
      expect(all.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
      expect(all.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toContain(answer);
    }
    // The call cut off before its result ran again under its own id, answered once.
    const mid = parse(await collectSse(await events(user.apiKey, betweenToolAndResult.runId)));
    const callIds = mid.filter((e) => e.type === "TOOL_CALL_START").map((e) => e.toolCallId);
    expect(callIds).toHaveLength(1);
    expect(mid.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.toolCallId)).toEqual(callIds);
  }, 120_000);
});
