import { RunFinishedEventSchema } from "@ag-ui/core/schemas";
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { getPool } from "@/server/db";
import { baseUrl, bearer } from "@/test/helpers";
import { getJson, postRun, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";

// What the approval tests share: a run that asks for a write, its interrupt, a decision over
// HTTP, and what the database says was done.

export type Event = Record<string, unknown> & { type: string };
export type Interrupt = { id: string; reason: string; toolCallId: string; message: string; responseSchema: object; expiresAt: string; metadata: { ui_schema: { status: string } } };

export const events = async (res: Response) => (await collectSse(res)).map((f) => JSON.parse(f.data) as Event);
export const ofType = (list: Event[], type: string) => list.filter((e) => e.type === type);

/** A memory.update the fake model makes; `key` keeps the tests' facts apart. */
export const rememberTurn = (key: string, value = "yes", extra = "") => `remember ${key} ${extra} [[tool:memory.update {"facts":[{"key":"${key}","value":"${value}"}]}]]`;

/** The value of a memory fact of the user, or null. */
export async function fact(userId: string, key: string): Promise<string | null> {
  const { rows } = await getPool().query<{ value: string }>(`select value from memory_facts where user_id = $1 and key = $2`, [userId, key]);
  return rows[0]?.value ?? null;
}

/** Streams a run of the seed endpoint and returns its events and the interrupt it ended with. */
export async function interruptedRun(apiKey: string, text: string, overrides: Record<string, unknown> = {}) {
  const body = runInput(overrides, text);
  const list = await events(await postRun(apiKey, body, { stream: true }));
  const finished = ofType(list, "RUN_FINISHED")[0]!;
  expect(RunFinishedEventSchema.safeParse(finished).success).toBe(true);
  const outcome = finished.outcome as { type: string; interrupts?: Interrupt[] };
  expect(outcome.type).toBe("interrupt");
  return { body, list, interrupt: outcome.interrupts![0]!, threadId: body.threadId as string };
}

/** POST /api/v1/agent/interrupts/{id}: the decision, answered as JSON (202 with the continuation's task) or a stream. */
export function decide(apiKey: string, id: string, decision: Record<string, unknown>, opts: { stream?: boolean; base?: string } = {}) {
  return fetch(`${opts.base ?? baseUrl()}/api/v1/agent/interrupts/${id}`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json", accept: opts.stream ? "text/event-stream" : "application/json" },
    body: JSON.stringify(decision),
  });
}

export async function history(apiKey: string, threadId: string, locale?: string) {
  return (await (await getJson(apiKey, `/api/v1/agent/history?threadId=${threadId}${locale ? `&locale=${locale}` : ""}`)).json()) as {
    messages: { id: string; role: string; content: string; uiSchema?: { status: string; locale: string } | null; approval?: { id: string; status: string; actions: string[]; expiresAt: string } }[];
  };
}

/** The latest user text with fake-model directives that show what the model was sent. */
export const showTurn = (text: string) => `${text} ${randomUUID().slice(0, 6)} [[show:messages]]`;
