import { HttpAgent, type Message } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { paced, waitForRunEnd } from "@/test/runs";

// AG-UI's Stop (the requester drops its request) behind a load balancer: the request that stops,
// the one that re-attaches and the next message each land on another instance (issue #40, item 7).
// Two instances with a grace of 1.5 s; the runs take several seconds.
let one: ExtraServer;
let two: ExtraServer;
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
  [one, two] = await Promise.all([startExtraServer({ AG_UI_STOP_GRACE_MS: "1500" }), startExtraServer({ AG_UI_STOP_GRACE_MS: "1500" })]);
}, 90_000);

afterAll(() => {
  one?.child.kill("SIGKILL");
  two?.child.kill("SIGKILL");
});

const agentOn = (server: ExtraServer, threadId: string, messages: Message[] = []) =>
  new HttpAgent({ url: `${server.url}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId, initialMessages: structuredClone(messages) });
const slow = (word: string) => paced(150, `${word} ${Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")}`);

/** Starts a slow run on `server` and stops it (drops the request) at its first token; its runId. */
async function startAndStop(agent: HttpAgent, word: string): Promise<string> {
  agent.addMessage({ id: randomUUID(), role: "user", content: slow(word) });
  let runId = "";
  await agent
    .runAgent({}, { onRunStartedEvent: ({ event }) => void (runId = event.runId), onTextMessageContentEvent: () => agent.abortRun() })
    .catch(() => undefined);
  expect(runId).not.toBe("");
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
    const runId = await startAndStop(first, "reattach");

    // A reload: the same conversation, nothing new, through the other instance, past the first one's grace.
    const reloaded = agentOn(two, threadId, first.messages.filter((m) => m.role === "user"));
    let graceOver!: () => void;
    const pastGrace = new Promise<void>((resolve) => (graceOver = resolve));
    // The joined stream replays the run from its start, then goes on live: its 25th word comes
    // about 3.7 s after the stop, long after the first instance's grace of 1.5 s.
    const joined = reloaded.runAgent({}, { onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes("w25") && graceOver()) });
    await Promise.race([
      pastGrace,
      joined.then(() => {
        throw new Error("the run ended before its 25th word: the instance it was stopped on cancelled it");
      }),
    ]);
    expect((await (await fetch(`${baseUrl()}/api/v1/agent/runs/${runId}`, { headers: bearer(user.apiKey) })).json()) as { status: string }).toMatchObject({ status: "running" });

    // The re-attached client is the requester now: dropping its request stops the run.
    reloaded.abortRun();
    await joined.catch(() => undefined);
    expect(await waitForRunEnd(user.apiKey, runId)).toMatchObject({ status: "cancelled", error: { code: "REQUESTER_DISCONNECTED" } });
  });
});
