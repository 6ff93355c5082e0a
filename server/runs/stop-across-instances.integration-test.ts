import { HttpAgent, type Message } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { paced, waitForRunEnd } from "@/test/runs";
import { waitFor } from "@/test/wait";
import { getPool } from "@/server/db";

// AG-UI's Stop (the requester drops its request) behind a load balancer: the request that stops,
// the one that re-attaches and the next message each land on another instance (issue #40, item 7).
// Two instances with a grace of 3 s; the runs take 6 s and 12 s.
let one: ExtraServer;
let two: ExtraServer;
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
  [one, two] = await Promise.all([startExtraServer({ AG_UI_STOP_GRACE_MS: "3000" }), startExtraServer({ AG_UI_STOP_GRACE_MS: "3000" })]);
}, 90_000);

afterAll(() => {
  one?.child.kill("SIGKILL");
  two?.child.kill("SIGKILL");
});

const agentOn = (server: ExtraServer, threadId: string, messages: Message[] = []) =>
  new HttpAgent({ url: `${server.url}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId, initialMessages: structuredClone(messages) });
const slow = (word: string, words = 40) => paced(150, `${word} ${Array.from({ length: words }, (_, i) => `w${i}`).join(" ")}`);

/**
 * Starts a slow run and stops it (drops the request) at its first token; its runId once the
 * instance has seen the requester leave (a request that reaches another instance before that is
 * one the requester's instance has not yet heard of: docs/ag-ui.md).
 */
async function startAndStop(agent: HttpAgent, word: string, words?: number): Promise<string> {
  agent.addMessage({ id: randomUUID(), role: "user", content: slow(word, words) });
  let runId = "";
  await agent
    .runAgent({}, { onRunStartedEvent: ({ event }) => void (runId = event.runId), onTextMessageContentEvent: () => agent.abortRun() })
    .catch(() => undefined);
  expect(runId).not.toBe("");
  const departed = async () => (await getPool().query(`select 1 from run_departures d join runs r on r.id = d.run_id where r.run_id = $1`, [runId])).rowCount === 1;
  await waitFor(departed, 10_000);
  return runId;
}

describe("AG-UI's Stop across instances", () => {
  it("takes the next message through another instance at once: the stopped run is cancelled, not a 409", async () => {
    const threadId = randomUUID();
    const first = agentOn(one, threadId);
    const stoppedRun = await startAndStop(first, "supersede");

    const next = agentOn(two, threadId, first.messages);
    next.addMessage({ id: randomUUID(), role: "user", content: "after stop elsewhere" });
    const result = await next.runAgent();
    expect(result.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "You said: after stop elsewhere" });
    expect(await waitForRunEnd(user.apiKey, stoppedRun)).toMatchObject({ status: "cancelled", error: { code: "REQUESTER_DISCONNECTED" } });
  });

  it("keeps a stopped run when its client re-attaches through another instance, and the re-attached client's Stop stops it", async () => {
    const threadId = randomUUID();
    const first = agentOn(one, threadId);
    // 80 words, 12 s: the re-attached client stops it at its 35th word, 3 s of grace before its end.
    const runId = await startAndStop(first, "reattach", 80);

    // A reload: the same conversation, nothing new, through the other instance, past the first one's grace.
    const reloaded = agentOn(two, threadId, first.messages.filter((m) => m.role === "user"));
    let graceOver!: () => void;
    const pastGrace = new Promise<void>((resolve) => (graceOver = resolve));
    // The joined stream replays the run from its start, then goes on live: its 35th word comes
    // about 5.2 s after the stop, long after the first instance's grace of 3 s.
    const joined = reloaded.runAgent({}, { onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes("w35") && graceOver()) });
    await Promise.race([
      pastGrace,
      joined.then(() => {
        throw new Error("the run ended before its 35th word: the instance it was stopped on cancelled it");
      }),
    ]);
    expect((await (await fetch(`${baseUrl()}/api/v1/agent/runs/${runId}`, { headers: bearer(user.apiKey) })).json()) as { status: string }).toMatchObject({ status: "running" });

    // The re-attached client is the requester now: dropping its request stops the run.
    reloaded.abortRun();
    await joined.catch(() => undefined);
    expect(await waitForRunEnd(user.apiKey, runId)).toMatchObject({ status: "cancelled", error: { code: "REQUESTER_DISCONNECTED" } });
  });
});
