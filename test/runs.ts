import { randomUUID } from "node:crypto";
import { baseUrl, bearer } from "./helpers";

export function runInput(overrides: Record<string, unknown> = {}, text = "hello there") {
  return {
    threadId: randomUUID(),
    runId: `run-${randomUUID()}`,
    state: {},
    messages: [{ id: `msg-${randomUUID().slice(0, 8)}`, role: "user", content: text }],
    tools: [],
    context: [],
    forwardedProps: {},
    ...overrides,
  };
}

/** User text that makes the test server's fake LLM wait `delayMs` between tokens (see test/fake-llm.ts). */
export function paced(delayMs: number, text: string): string {
  return `[[delay:${delayMs}]] ${text}`;
}

export function postRun(key: string, body: unknown, opts: { stream?: boolean; raw?: string } = {}): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", ...(opts.stream ? { accept: "text/event-stream" } : {}) },
    body: opts.raw ?? JSON.stringify(body),
  });
}

export function getJson(key: string, path: string): Promise<Response> {
  return fetch(`${baseUrl()}${path}`, { headers: bearer(key) });
}

/** Polls the run until it reaches a terminal status. */
export async function waitForRunEnd(key: string, runId: string, timeoutMs = 20_000): Promise<{ status: string } & Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await getJson(key, `/api/v1/agent/runs/${encodeURIComponent(runId)}`);
    const body = (await res.json()) as { status: string } & Record<string, unknown>;
    if (["completed", "failed", "cancelled"].includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
