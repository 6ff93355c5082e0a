// Two instances behind a round-robin balancer (issue #45): every request goes to the next
// instance in turn, nothing is sticky, and conversations, follows, stops and resumes still work
// whichever instance each request lands on. Throughput belongs to the bench, not here.
import { HttpAgent, verifyEvents, type BaseEvent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { startRoundRobinProxy, type RoundRobinProxy } from "@/test/round-robin-proxy";
import { paced, runInput } from "@/test/runs";
import { collectSse, readSse, type SseFrame } from "@/test/sse";

let other: ExtraServer | undefined;
let proxy: RoundRobinProxy;
let users: { apiKey: string }[];

beforeAll(async () => {
  baseUrl(); // needs a production build
  [other, users] = await Promise.all([startExtraServer(), Promise.all([createTestUser(), createTestUser(), createTestUser()])]);
  proxy = await startRoundRobinProxy([baseUrl(), other.url]);
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  other?.child.kill("SIGTERM");
});

const json = { "content-type": "application/json" };
const via = (path: string) => `${proxy.url}${path}`;

async function turn(agent: HttpAgent, text: string): Promise<BaseEvent[]> {
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  const events: BaseEvent[] = [];
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
  await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  return events;
}

/** The frames of a run's log, read whole through the balancer (an ended run's replay). */
async function replay(apiKey: string, runId: string, lastEventId?: string): Promise<SseFrame[]> {
  const headers = { ...bearer(apiKey), ...(lastEventId ? { "last-event-id": lastEventId } : {}) };
  return collectSse(await fetch(via(`/api/v1/agent/runs/${runId}/events`), { headers }));
}

async function statusOf(apiKey: string, runId: string): Promise<string> {
  for (;;) {
    const res = await fetch(via(`/api/v1/agent/runs/${runId}`), { headers: bearer(apiKey) });
    const { status } = (await res.json()) as { status: string };
    if (["completed", "failed", "cancelled"].includes(status)) return status;
    await new Promise((r) => setImmediate(r));
  }
}

describe("two instances behind a round-robin balancer", () => {
  it("holds many three-turn conversations at once through the unmodified HttpAgent, each turn wherever it lands", { timeout: 120_000 }, async () => {
    const before = [...proxy.served];
    const conversations = users.flatMap((user) =>
      Array.from({ length: 4 }, (_, i) => {
        const threadId = randomUUID();
        return { user, threadId, agent: new HttpAgent({ url: via("/api/v1/ag-ui"), headers: bearer(user.apiKey), threadId }), words: [`alpha${i}`, `beta${i}`, `gamma${i}`] };
      }),
    );
    await Promise.all(
      conversations.map(async (c) => {
        for (const word of c.words) {
          const events = await turn(c.agent, word);
          expect(events.at(-1)?.type).toBe("RUN_FINISHED");
        }
      }),
    );
    // Each instance served a share of the turns, and every thread's history (read wherever it
    // lands) holds its six messages in order, whoever ran each turn.
    expect(proxy.served.map((n, i) => n - before[i]!).every((n) => n > 0)).toBe(true);
    for (const c of conversations) {
      const res = await fetch(via(`/api/v1/agent/history?threadId=${c.threadId}`), { headers: bearer(c.user.apiKey) });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { messages: { role: string; content: string }[] };
      expect(page.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
      expect(page.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(c.words);
    }
  });

  it("follows a run from both instances, resumes a dropped stream from its last id, and stops a run wherever the stop lands", { timeout: 60_000 }, async () => {
    const [user] = users;
    const body = runInput({}, paced(30, "one two three four five six seven eight nine ten eleven twelve"));
    const accepted = await fetch(via("/api/v1/agent/runs"), { method: "POST", headers: { ...bearer(user!.apiKey), ...json }, body: JSON.stringify(body) });
    expect(accepted.status).toBe(202);

    // A stream dropped after a few frames, then resumed from its last id (on the other instance).
    const partial: SseFrame[] = [];
    const live = await fetch(via(`/api/v1/agent/runs/${body.runId}/events`), { headers: bearer(user!.apiKey) });
    for await (const frame of readSse(live)) {
      partial.push(frame);
      if (partial.length === 4) break;
    }
    const rest = await replay(user!.apiKey, body.runId, partial.at(-1)!.id!);
    expect(await statusOf(user!.apiKey, body.runId)).toBe("completed");
    // Two followers after the end, one per instance, see the same log; the resumed one adds up to it.
    const [first, second] = await Promise.all([replay(user!.apiKey, body.runId), replay(user!.apiKey, body.runId)]);
    expect(first).toEqual(second);
    expect([...partial, ...rest]).toEqual(first);
    expect(JSON.parse(first.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED" });

    // A slow run, its stop sent through the balancer: whichever instance gets it, the run stops.
    const slow = runInput({}, paced(300, "a b c d e f g h i j k l m n o p"));
    const stream = readSse(await fetch(via("/api/v1/agent/runs"), { method: "POST", headers: { ...bearer(user!.apiKey), ...json, accept: "text/event-stream" }, body: JSON.stringify(slow) }));
    for await (const f of stream) if (JSON.parse(f.data).type === "TEXT_MESSAGE_CONTENT") break;
    const stop = await fetch(via(`/api/v1/agent/runs/${slow.runId}/cancel`), { method: "POST", headers: bearer(user!.apiKey) });
    expect(stop.status).toBe(202);
    expect(await statusOf(user!.apiKey, slow.runId)).toBe("cancelled");
  });
});
