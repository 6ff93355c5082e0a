import { expect } from "vitest";
import { bearer } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { getPool } from "@/server/db";

// Runs made over HTTP for the event log lifecycle's tests (lifecycle and partitions), against a
// production server of their own. Imported once the test file has named its database.

/** A user's finished runs on `serverUrl`, and their replays through the events door. */
export function runsOver(serverUrl: string, apiKey: string) {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${serverUrl}${path}`, { headers: { ...bearer(apiKey), ...headers } });

  /** A finished run started over HTTP (202), its thread and its ids. */
  async function finishedRun(text: string): Promise<{ runId: string; threadId: string; id: string }> {
    const input = runInput({}, text);
    const res = await fetch(`${serverUrl}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    expect(res.status).toBe(202);
    // Following the run to its end is the wait: the stream ends with its terminal event.
    await (await get(`/api/v1/agent/runs/${input.runId}/events`, { accept: "text/event-stream" })).text();
    const { rows } = await getPool().query<{ id: string }>(`select id from runs where run_id = $1 and status = 'completed'`, [input.runId]);
    expect(rows).toHaveLength(1);
    return { runId: input.runId, threadId: input.threadId, id: rows[0]!.id };
  }

  /** What a client reads following the run from `after` (by `?after=` or by Last-Event-ID). */
  async function replay(runId: string, after = 0, how: "query" | "header" = "query"): Promise<{ status: number; body: string }> {
    const path = `/api/v1/agent/runs/${runId}/events${how === "query" && after > 0 ? `?after=${after}` : ""}`;
    const res = await get(path, { accept: "text/event-stream", ...(how === "header" ? { "last-event-id": String(after) } : {}) });
    return { status: res.status, body: await res.text() };
  }

  return { get, finishedRun, replay };
}
