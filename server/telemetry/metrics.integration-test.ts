import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";

// GET /api/metrics on a server instance of its own (its counters start at zero), scraped with
// its METRICS_TOKEN after a run with a tool call, and parsed as Prometheus's text format.

const TOKEN = "metrics-token-for-the-test-0123456789";
let server: ExtraServer | undefined;
beforeAll(async () => {
  baseUrl();
  // No queue worker: other files' queued work (scheduled runs, webhook deliveries) shares the test
  // database's queue and would be counted here too; this instance counts only this file's run.
  server = await startExtraServer({ METRICS_TOKEN: TOKEN, QUEUE_WORKER_CONCURRENCY: "0" });
}, 90_000);
afterAll(() => {
  server?.child.kill("SIGTERM");
});

type Sample = { name: string; labels: Record<string, string>; value: number };

/** Prometheus text exposition: `name{a="b",...} value` lines; HELP/TYPE comments skipped. */
function parseExposition(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not an exposition line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

describe("GET /api/metrics", () => {
  it("is refused without the token, and with it counts a run's status, durations, tokens, tool calls, event-log writes and the pool", async () => {
    const url = `${server!.url}/api/metrics`;
    expect((await fetch(url)).status).toBe(401);
    const wrong = await fetch(url, { headers: { authorization: "Bearer not-the-token-at-all-0000" } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/Invalid metrics token/);

    const user = await createTestUser();
    const body = runInput({}, '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]] what is on');
    const res = await fetch(`${server!.url}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    const frames = await collectSse(res);
    const finished = JSON.parse(frames.at(-1)!.data) as { usage: { inputTokens: number; outputTokens: number; model: string }[] };

    const scraped = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(await scraped.text());

    expect(value(samples, "dispatch_runs_total", { status: "completed", protocol: "ag-ui" })).toBe(1);
    expect(value(samples, "dispatch_run_duration_seconds_count", { protocol: "ag-ui", status: "completed" })).toBe(1);
    expect(value(samples, "dispatch_run_time_to_first_event_seconds_count", { protocol: "ag-ui" })).toBe(1);
    const model = finished.usage[0]!.model;
    expect(value(samples, "dispatch_tokens_total", { kind: "input", model })).toBe(finished.usage[0]!.inputTokens);
    expect(value(samples, "dispatch_tokens_total", { kind: "output", model })).toBe(finished.usage[0]!.outputTokens);
    expect(value(samples, "dispatch_tool_calls_total", { status: "ok" })).toBe(1);
    expect(value(samples, "dispatch_event_log_write_seconds_count")).toBeGreaterThan(0);
    expect(value(samples, "dispatch_active_runs")).toBe(0);
    expect(value(samples, "dispatch_active_streams")).toBe(0);
    expect(value(samples, "dispatch_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(value(samples, "dispatch_process_resident_memory_bytes")).toBeGreaterThan(0);
  });
});
