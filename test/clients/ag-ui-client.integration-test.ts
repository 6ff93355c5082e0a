// The official @ag-ui/client 1.0.0 HttpAgent (the main app's own dependency), on its default
// settings, straight against Dispatch's POST /api/v1/ag-ui: it resends the conversation it holds
// on every run, stops by aborting its request, and a reloaded page is a fresh agent on the thread.
import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestUser } from "@/test/helpers";
import { waitFor } from "@/test/wait";
import { agUiUrl, CARD_TURN, cardOf, ECHO_TURN, marker, modelCalls, rolesSeenByModel, slowAnswer, slowTurn, waitForRunEnd } from "./dispatch";

let apiKey = "";
beforeAll(async () => {
  apiKey = (await createTestUser()).apiKey;
});

const agentOn = (threadId: string) => new HttpAgent({ url: agUiUrl(), headers: bearer(apiKey), threadId });

/** A chat input: add the user's message, run, and hand back the answer's text. */
async function send(agent: HttpAgent, text: string, subscriber: Parameters<HttpAgent["runAgent"]>[1] = {}): Promise<string> {
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  await agent.runAgent({}, subscriber);
  return lastAnswer(agent);
}

function lastAnswer(agent: HttpAgent): string {
  const last = agent.messages.findLast((m) => m.role === "assistant");
  return typeof last?.content === "string" ? last.content : "";
}

describe("@ag-ui/client 1.0.0 HttpAgent", () => {
  it("holds a three-turn conversation whose project_cli card survives in the client, and after a reload", async () => {
    const threadId = randomUUID();
    const agent = agentOn(threadId);
    expect(await send(agent, "hello one")).toBe("You said: hello one");
    expect(await send(agent, CARD_TURN)).toMatch(/^Tool said: /);
    const echo = await send(agent, ECHO_TURN);
    // Dispatch gave the model the whole thread once: its own history, not the resent copy twice.
    expect(rolesSeenByModel(echo)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
    expect(agent.messages.filter((m) => m.role === "user")).toHaveLength(3);
    expect(cardOf(agent.messages)).toMatchObject({ version: "2.0" });

    // A reload: a fresh agent holding nothing gets the thread back as a MESSAGES_SNAPSHOT, card
    // included, and goes on with the conversation it was given.
    const reloaded = agentOn(threadId);
    const types: string[] = [];
    await reloaded.runAgent({}, { onEvent: ({ event }: { event: BaseEvent }) => void types.push(event.type) });
    expect(types).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    expect(reloaded.messages.map((m) => m.role)).toEqual(agent.messages.map((m) => m.role));
    expect(cardOf(reloaded.messages)).toMatchObject({ version: "2.0" });
    const held = reloaded.messages.map((m) => m.id);
    expect(await send(reloaded, "and four")).toBe("You said: and four");
    // The same message has the same id in the stream and in the snapshot.
    expect(held).toEqual(agent.messages.map((m) => m.id));
  });

  it("stops an answer mid-stream and takes the next message at once", async () => {
    const agent = agentOn(randomUUID());
    const word = marker("stop");
    let runId = "";
    const first = send(agent, slowTurn(word), {
      onRunStartedEvent: ({ event }) => void (runId = event.runId),
      onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes(word) && agent.abortRun()),
    });
    // An aborted run ends the client's promise without an error (AbortError is swallowed).
    const partial = await first;
    expect(partial.startsWith(`You said: ${word}`)).toBe(true);
    expect(partial.length).toBeLessThan(slowAnswer(word).length);

    expect(await send(agent, "right after stop")).toBe("You said: right after stop");
    expect((await waitForRunEnd(apiKey, runId)).status).toBe("cancelled");
    await waitFor(async () => {
      const calls = await modelCalls(word);
      return calls.length > 0 && calls.every((c) => c.state === "aborted");
    }, 10_000);
  });

  it("rejoins a running answer after a reload: thread snapshot, then the run's events from its start", async () => {
    const threadId = randomUUID();
    const before = agentOn(threadId);
    await send(before, "earlier turn");
    const word = marker("rejoin");
    let runId = "";
    // The page goes away mid-answer: its request is cut, as a reload cuts it...
    await send(before, slowTurn(word, 120), {
      onRunStartedEvent: ({ event }) => void (runId = event.runId),
      onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes(word) && before.abortRun()),
    });
    // ...and the reloaded page, holding nothing yet, posts to the thread at once.
    const after = agentOn(threadId);
    const types: string[] = [];
    await after.runAgent({}, { onEvent: ({ event }: { event: BaseEvent }) => void types.push(event.type) });
    expect(types.slice(0, 2)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT"]);
    expect(types).toContain("TEXT_MESSAGE_START");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(lastAnswer(after)).toBe(slowAnswer(word));
    expect((await waitForRunEnd(apiKey, runId)).status).toBe("completed");
    expect(await modelCalls(word)).toEqual([expect.objectContaining({ state: "done" })]);
  });
});
