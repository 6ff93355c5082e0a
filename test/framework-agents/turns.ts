// What the framework agents' tests do as a client: a user bound to the agent, and one chat turn
// through the unmodified @ag-ui/client HttpAgent, its events checked by the client's own verifier.
import { verifyEvents, type BaseEvent, type HttpAgent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { bindRunner } from "@/server/runner-host/service";
import { createTestUser } from "@/test/helpers";

export async function userBoundTo(runnerId: string) {
  const user = await createTestUser();
  await bindRunner({ runnerId, email: user.email });
  return user;
}

/** Fails unless the events are a valid AG-UI stream by @ag-ui/client's own verifier. */
export const verified = (events: BaseEvent[]) => lastValueFrom(from(events).pipe(verifyEvents(), toArray()));

/**
 * One chat turn on the client (with `state` as the client's state, when given): its events, the
 * error its run's promise rejected with (a client's own abort, an agent's RUN_ERROR) or null, and
 * the answer (the last assistant message with text). The events are checked even when it failed.
 */
export async function send(agent: HttpAgent, text: string, subscriber: Parameters<HttpAgent["runAgent"]>[1] = {}, state?: Record<string, unknown>) {
  const events: BaseEvent[] = [];
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  if (state !== undefined) agent.setState(state);
  let error: unknown = null;
  await agent.runAgent({}, { ...subscriber, onEvent: ({ event }) => void events.push(event) }).catch((err: unknown) => (error = err));
  await verified(events);
  const last = agent.messages.findLast((m) => m.role === "assistant" && typeof m.content === "string" && m.content !== "");
  return { events, error, answer: typeof last?.content === "string" ? last.content : "" };
}

export const runIdOf = (events: BaseEvent[]) => (events.find((e) => e.type === "RUN_STARTED") as unknown as { runId: string }).runId;
