// The scenarios every CopilotKit variant must pass against Dispatch, through the whole chain
// (headless core -> CopilotKit runtime -> HttpAgent -> POST /api/v1/ag-ui). One file per variant
// calls `describeCopilotKit` with its wiring.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestUser, bearer, baseUrl } from "@/test/helpers";
import { waitFor } from "@/test/wait";
import { ChatTab, startRuntime, type KitWiring } from "./copilotkit-kit";
import { agUiUrl, CARD_TURN, cardOf, ECHO_TURN, marker, modelCalls, rolesSeenByModel, slowAnswer, slowTurn, waitForRunEnd } from "./dispatch";

/**
 * Where the variant's client keeps the card of a project_cli result: on the tool message's
 * `metadata.ui_schema` (AG-UI clients that fold event metadata into messages), or only on the
 * TOOL_CALL_RESULT event its agent applies (clients whose message schema has no `metadata`).
 */
export type CardSurface = "tool-message" | "tool-result-event";

const CARD = { version: "2.0" };

export type SuiteOptions = {
  card: CardSurface;
  /**
   * An error the client itself reports when it is stopped (a known bug of that client version,
   * described where it is passed); the test then requires exactly that error, and no other.
   */
  stopError?: RegExp;
  /**
   * Whether the client applies STATE_DELTA when it runs in Node: "no" for a client whose own
   * JSON Patch import fails there (described where it is passed).
   */
  appliesDeltasInNode?: "yes" | "no";
};

export function describeCopilotKit(name: string, wiring: KitWiring, opts: SuiteOptions): void {
  describe(name, () => {
    let apiKey = "";
    let runtime: Awaited<ReturnType<typeof startRuntime>> | undefined;
    const tabs: ChatTab[] = [];
    const open = async (threadId: string): Promise<ChatTab> => {
      const tab = await ChatTab.open(wiring, runtime!.url, threadId);
      tabs.push(tab);
      return tab;
    };
    const runStatus = async (runId: string): Promise<string> =>
      ((await (await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}`, { headers: bearer(apiKey) })).json()) as { status: string }).status;

    beforeAll(async () => {
      apiKey = (await createTestUser()).apiKey;
      runtime = await startRuntime(wiring, agUiUrl(), apiKey);
    });
    afterAll(async () => {
      await Promise.all(tabs.map((tab) => tab.close().catch(() => undefined)));
      await runtime?.close();
    });

    it("holds a three-turn conversation whose project_cli card survives in the client, and after a reload", async () => {
      const threadId = randomUUID();
      const tab = await open(threadId);
      await tab.connected;
      await tab.send("hello one");
      expect(tab.lastAnswer()).toBe("You said: hello one");
      await tab.send(CARD_TURN);
      expect(tab.lastAnswer()).toMatch(/^Tool said: /);
      await tab.send(ECHO_TURN);
      // Dispatch gave the model the whole thread once: its own history, not the resent copy twice.
      expect(rolesSeenByModel(tab.lastAnswer())).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
      expect(tab.agent.messages.filter((m) => m.role === "user")).toHaveLength(3);
      expect(tab.agent.messages.filter((m) => m.role === "tool")).toHaveLength(1);
      expect(tab.toolResults).toHaveLength(1);
      expect(tab.toolResults[0]?.metadata?.ui_schema).toMatchObject(CARD);
      // Where this client keeps it (and where it does not) is part of what the test pins.
      if (opts.card === "tool-message") expect(cardOf(tab.agent.messages)).toMatchObject(CARD);
      else expect(cardOf(tab.agent.messages)).toBeUndefined();

      // A reload: a fresh core on the thread gets the same conversation back, card included.
      await tab.close();
      const reloaded = await open(threadId);
      await reloaded.connected;
      expect(reloaded.agent.messages.map((m) => [m.id, m.role])).toEqual(tab.agent.messages.map((m) => [m.id, m.role]));
      expect(reloaded.toolResults[0]?.metadata?.ui_schema).toMatchObject(CARD);
      if (opts.card === "tool-message") expect(cardOf(reloaded.agent.messages)).toMatchObject(CARD);
      expect(reloaded.errors).toEqual([]);
    });

    it("stops an answer mid-stream and takes the next message at once", async () => {
      const tab = await open(randomUUID());
      await tab.connected;
      const word = marker("stop");
      const first = tab.trySend(slowTurn(word));
      await waitFor(() => tab.lastAnswer().startsWith(`You said: ${word}`), 15_000);
      tab.stop();
      const stopErrors = await first;
      if (opts.stopError) {
        expect(stopErrors.length).toBeGreaterThan(0);
        for (const error of stopErrors) expect(error).toMatch(opts.stopError);
      } else expect(stopErrors).toEqual([]);
      const partial = tab.lastAnswer();
      expect(partial.length).toBeLessThan(slowAnswer(word).length);

      await tab.send("right after stop");
      expect(tab.lastAnswer()).toBe("You said: right after stop");
      expect(tab.runIds).toHaveLength(2);
      expect((await waitForRunEnd(apiKey, tab.runIds[0]!)).status).toBe("cancelled");
      await waitFor(async () => {
        const calls = await modelCalls(word);
        return calls.length > 0 && calls.every((c) => c.state === "aborted");
      }, 10_000);
    });

    it("shares state both ways: the app's state reaches the model, the agent's patch reaches the app, a reload gets it back", async () => {
      const threadId = randomUUID();
      const tab = await open(threadId);
      await tab.connected;
      // What useCoAgent's setState does before the next message.
      tab.agent.setState({ recipe: { title: "Pancakes", ingredients: ["flour"] } });
      const word = marker("kitstate");
      const patch = [
        { op: "add", path: "/recipe/ingredients/-", value: "milk" },
        { op: "add", path: "/plan", value: { steps: [{ description: "Mix", status: "done" }] } },
      ];
      await tab.send(`[[call:update_state ${JSON.stringify({ operations: patch })}]] add milk ${word}`);
      const [call] = await modelCalls(word);
      const system = String(call?.body.messages.find((m) => m.role === "system")?.content ?? "");
      expect(system).toContain('"Pancakes"');
      const patched = { recipe: { title: "Pancakes", ingredients: ["flour", "milk"] }, plan: { steps: [{ description: "Mix", status: "done" }] } };
      if (opts.appliesDeltasInNode === "no") expect(tab.agent.state).toEqual({ recipe: { title: "Pancakes", ingredients: ["flour"] } });
      else expect(tab.agent.state).toEqual(patched);

      await tab.close();
      const reloaded = await open(threadId);
      await reloaded.connected;
      expect(reloaded.errors).toEqual([]);
      // A client that drops deltas rebuilds the run from them on a reload too (its runtime replays
      // the run's events), and so shows the state the run started with.
      expect(reloaded.agent.state).toEqual(opts.appliesDeltasInNode === "no" ? tab.agent.state : patched);
    });

    it("rejoins a running answer after a reload", async () => {
      const threadId = randomUUID();
      const before = await open(threadId);
      await before.connected;
      await before.send("earlier turn");
      const word = marker("rejoin");
      const running = before.send(slowTurn(word, 120));
      await waitFor(() => before.lastAnswer().startsWith(`You said: ${word}`), 15_000);
      const runId = before.runIds[1]!;
      // The page goes away (its chat unmounts) while the answer is streaming...
      await before.close();
      await running;
      // ...and comes back on the same thread while the run is still going.
      const after = await open(threadId);
      expect(await runStatus(runId)).toBe("running");
      await after.connected;
      expect(after.errors).toEqual([]);
      expect(after.agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(after.lastAnswer()).toBe(slowAnswer(word));
      expect((await waitForRunEnd(apiKey, runId)).status).toBe("completed");
      expect(await modelCalls(word)).toEqual([expect.objectContaining({ state: "done" })]);
    });
  });
}
