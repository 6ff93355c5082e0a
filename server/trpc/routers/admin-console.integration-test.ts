import { EventType } from "@ag-ui/core";
import { TRPCError } from "@trpc/server";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { AppError } from "@/server/kernel/errors";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun } from "@/server/runs/accept";
import { executeRun } from "@/server/runs/execute";
import { runHandle } from "@/server/runs/handle";
import type { Runner } from "@/server/kernel/runs";
import { createCaller } from "@/server/trpc/root";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { callerAs, type Caller, type TestUser } from "@/test/trpc-callers";

// The callers below get their principal directly; the session lookup (Auth.js, which
// needs Next's runtime) is never reached.
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

// The admin console's tRPC API over real data: runs started over HTTP against the
// production server (the built-in agent, on the fake LLM of test/fake-llm.ts), plus runs
// executed in this process by the real engine with scripted runners, whose tool outputs
// and failures are exactly known.


let admin: Caller;
let member: Caller;
let anonymous: Caller;
let alice: TestUser;

const ids = { twoRunThread: randomUUID(), toolRun: "", failedRun: "", cancelledRunId: "", slowRunId: "", longRunId: "", agentToolRunId: "" };
// Alice's runs: 3 single, 2 on one thread, slow, long, cancelled, agent tool call, and 2 in-process.
const ALICE_RUNS = 11;
const ALICE_THREADS = 10;
const CALENDAR_DAY = { mode: "day", date: "2026-01-02", time_zone: "UTC" };

async function httpRun(overrides: Record<string, unknown> = {}, text = "hello there") {
  const body = runInput(overrides, text);
  const res = await postRun(alice.apiKey, body);
  expect(res.status).toBe(202);
  return body;
}

async function runInProcess(runner: Runner, text: string): Promise<string> {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({}, text)));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId: alice.id, input: parsed.input, protocol: "test-protocol", runner: runner.id });
  await executeRun(
    runHandle(run),
    parsed.input,
    runner,
  );
  return run.id;
}

const calendarHints = {
  kind: "calendar.events",
  events: [{ title: "Project sync", start: "2026-04-21T10:00:00+08:00", end: "2026-04-21T11:00:00+08:00" }],
};

// Two tool calls: the first streams its arguments in two deltas and succeeds, the second
// sends none (they live only in the tool message) and fails.
const toolRunner: Runner = {
  id: "test:tools",
  async run({ emit }) {
    emit({ type: EventType.TOOL_CALL_START, toolCallId: "call_ok", toolCallName: "project_cli" });
    emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: "call_ok", delta: '{"module":"calendar",' });
    emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: "call_ok", delta: '"method":"read","input":{"mode":"day"}}' });
    emit({ type: EventType.TOOL_CALL_END, toolCallId: "call_ok" });
    const ok = {
      tool_name: "project_cli",
      tool_call_id: "call_ok",
      tool_call_args: { module: "calendar", method: "read", input: { mode: "day" } },
      status: "success",
      result: { module: "calendar", method: "read", data: { count: 1 } },
      error: null,
      ui_hints: calendarHints,
    };
    emit(
      { type: EventType.TOOL_CALL_RESULT, messageId: "tool_msg_ok", toolCallId: "call_ok", content: JSON.stringify(ok.result) },
      { messageMetadata: { tool_agent_output: ok } },
    );
    emit({ type: EventType.TOOL_CALL_START, toolCallId: "call_bad", toolCallName: "project_cli" });
    emit({ type: EventType.TOOL_CALL_END, toolCallId: "call_bad" });
    const bad = {
      tool_name: "project_cli",
      tool_call_id: "call_bad",
      tool_call_args: { module: "calendar", method: "read", input: { mode: "week" } },
      status: "failure",
      result: null,
      error: { code: "INVALID_ACTION_INPUT", message: "calendar.read input does not match method schema" },
      ui_hints: { kind: "error", module: "calendar", method: "read", code: "INVALID_ACTION_INPUT", message: "Bad input" },
    };
    emit(
      { type: EventType.TOOL_CALL_RESULT, messageId: "tool_msg_bad", toolCallId: "call_bad", content: JSON.stringify(bad.error) },
      { messageMetadata: { tool_agent_output: bad } },
    );
    emit({ type: EventType.TEXT_MESSAGE_START, messageId: "answer", role: "assistant" });
    emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "answer", delta: "You have one meeting." });
    emit({ type: EventType.TEXT_MESSAGE_END, messageId: "answer" });
    return { model: "scripted", usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } };
  },
};

const failingRunner: Runner = {
  id: "test:fails",
  run: async () => Promise.reject(new AppError("UNPROCESSABLE", "The model refused the request")),
};

beforeAll(async () => {
  const [adminUser, memberUser, aliceUser] = await Promise.all([createTestUser({ role: "admin" }), createTestUser(), createTestUser()]);
  admin = callerAs(adminUser);
  member = callerAs(memberUser);
  anonymous = createCaller({ principal: null });
  alice = aliceUser;

  // Started one after another so creation times are distinct and ordered.
  for (const text of ["first", "second", "third"]) await waitForRunEnd(alice.apiKey, (await httpRun({}, text)).runId);
  for (const text of ["thread one", "thread two"]) await waitForRunEnd(alice.apiKey, (await httpRun({ threadId: ids.twoRunThread }, text)).runId);
  const slow = await httpRun({}, paced(120, "a b c d e"));
  ids.slowRunId = slow.runId;
  await waitForRunEnd(alice.apiKey, slow.runId);
  const long = await httpRun({}, Array.from({ length: 600 }, (_, i) => `w${i}`).join(" "));
  ids.longRunId = long.runId;
  await waitForRunEnd(alice.apiKey, long.runId);
  const agentTool = await httpRun({}, `what's on? [[tool:calendar.read ${JSON.stringify(CALENDAR_DAY)}]]`);
  ids.agentToolRunId = agentTool.runId;
  expect((await waitForRunEnd(alice.apiKey, agentTool.runId)).status).toBe("completed");
  const cancelled = await httpRun({}, paced(200, "a b c d e f g h i j k l m n o p"));
  ids.cancelledRunId = cancelled.runId;
  expect((await fetch(`${baseUrl()}/api/v1/agent/runs/${cancelled.runId}/cancel`, { method: "POST", headers: bearer(alice.apiKey) })).status).toBe(202);
  expect((await waitForRunEnd(alice.apiKey, cancelled.runId)).status).toBe("cancelled");
  ids.toolRun = await runInProcess(toolRunner, "what is on my calendar?");
  ids.failedRun = await runInProcess(failingRunner, "please fail");
});

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    if (err instanceof TRPCError) return err.code;
    throw err;
  }
  return "OK";
}

async function allAliceRuns() {
  return (await admin.adminRuns.list({ userEmail: alice.email, limit: 100 })).items;
}

describe("admin console access", () => {
  const calls = {
    "adminRuns.list": (c: Caller) => c.adminRuns.list({}),
    "adminRuns.get": (c: Caller) => c.adminRuns.get({ id: ids.toolRun }),
    "adminRuns.events": (c: Caller) => c.adminRuns.events({ id: ids.toolRun }),
    "adminThreads.list": (c: Caller) => c.adminThreads.list({}),
    "adminThreads.get": (c: Caller) => c.adminThreads.get({ id: ids.twoRunThread }),
    "adminThreads.messages": (c: Caller) => c.adminThreads.messages({ id: ids.twoRunThread }),
    "adminDashboard.get": (c: Caller) => c.adminDashboard.get({ window: "24h" }),
  };

  it.each(Object.entries(calls))("%s: admins only (anonymous UNAUTHORIZED, members FORBIDDEN)", async (_name, call) => {
    expect(await codeOf(call(admin))).toBe("OK");
    expect(await codeOf(call(member))).toBe("FORBIDDEN");
    expect(await codeOf(call(anonymous))).toBe("UNAUTHORIZED");
  });
});

describe("adminRuns.list", () => {
  it("pages newest first with a cursor: the pages add up to the whole list, no gaps or repeats", async () => {
    const all = await allAliceRuns();
    expect(all).toHaveLength(ALICE_RUNS);
    const times = all.map((r) => r.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await admin.adminRuns.list({ userEmail: alice.email, limit: 3, cursor });
      paged.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(paged).toEqual(all.map((r) => r.id));
  });

  it("matches the owner's email by any part, in any case, and shows it", async () => {
    const part = alice.email.slice(0, 10).toUpperCase();
    const items = (await admin.adminRuns.list({ userEmail: part, limit: 100 })).items;
    expect(items.length).toBe(ALICE_RUNS);
    expect(new Set(items.map((r) => r.userEmail))).toEqual(new Set([alice.email]));
    expect((await admin.adminRuns.list({ userEmail: "%", limit: 5 })).items).toEqual([]);
  });

  it("filters by status, thread, protocol and error", async () => {
    const byStatus = await admin.adminRuns.list({ userEmail: alice.email, statuses: ["cancelled"] });
    expect(byStatus.items.map((r) => r.runId)).toEqual([ids.cancelledRunId]);
    const failedOrCancelled = await admin.adminRuns.list({ userEmail: alice.email, statuses: ["failed", "cancelled"] });
    expect(failedOrCancelled.items.map((r) => r.status).sort()).toEqual(["cancelled", "failed"]);

    const byThread = await admin.adminRuns.list({ threadId: ids.twoRunThread });
    expect(byThread.items).toHaveLength(2);
    expect(byThread.items.every((r) => r.threadId === ids.twoRunThread)).toBe(true);

    const byProtocol = await admin.adminRuns.list({ userEmail: alice.email, protocol: "test-protocol" });
    expect(byProtocol.items.map((r) => r.id).sort()).toEqual([ids.toolRun, ids.failedRun].sort());

    const withError = await admin.adminRuns.list({ userEmail: alice.email, hasError: true });
    expect(withError.items.map((r) => [r.id, r.errorCode, r.errorMessage])).toEqual([[ids.failedRun, "UNPROCESSABLE", "The model refused the request"]]);
    const withoutError = await admin.adminRuns.list({ userEmail: alice.email, hasError: false, limit: 100 });
    expect(withoutError.items).toHaveLength(ALICE_RUNS - 1);
  });

  it("filters by a minimum duration", async () => {
    const all = await allAliceRuns();
    const slow = all.find((r) => r.runId === ids.slowRunId)!;
    expect(slow.durationMs).toBeGreaterThanOrEqual(500);
    const expected = all.filter((r) => r.durationMs !== null && r.durationMs >= 500).map((r) => r.id);
    expect(expected.length).toBeLessThan(all.length);
    const items = (await admin.adminRuns.list({ userEmail: alice.email, minDurationMs: 500, limit: 100 })).items;
    expect(items.map((r) => r.id)).toEqual(expected);
  });

  it("filters by a time range: from inclusive, to exclusive", async () => {
    const all = await allAliceRuns();
    const from = all[6]!.createdAt;
    const to = all[2]!.createdAt;
    const items = (await admin.adminRuns.list({ userEmail: alice.email, createdFrom: from, createdTo: to, limit: 100 })).items;
    expect(items.map((r) => r.id)).toEqual(all.slice(3, 7).map((r) => r.id));
  });

  it("rejects an empty time range and a forged cursor", async () => {
    const now = new Date();
    await expect(admin.adminRuns.list({ createdFrom: now, createdTo: now })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(admin.adminRuns.list({ cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Invalid cursor: ask for the first page again",
    });
  });
});

describe("adminRuns.get", () => {
  it("shows the run's header, tool calls with arguments, outputs and cards, and latency", async () => {
    const detail = await admin.adminRuns.get({ id: ids.toolRun });
    expect(detail.run).toMatchObject({
      id: ids.toolRun,
      status: "completed",
      runner: "test:tools",
      model: "scripted",
      userEmail: alice.email,
      threadTitle: "what is on my calendar?",
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      errorCode: null,
    });
    expect(detail.run.durationMs).toEqual(expect.any(Number));
    // The trace the run's runner and model calls carried, exported or not (docs/operations.md).
    expect(detail.run.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(detail.eventCount).toBe(13);

    const [ok, bad] = detail.toolCalls;
    expect(ok).toMatchObject({
      toolCallId: "call_ok",
      toolName: "project_cli",
      args: { module: "calendar", method: "read", input: { mode: "day" } },
      argsSource: "events",
      status: "success",
      stage: "tool_execution",
      latencyMs: expect.any(Number),
      uiSource: "ui_hints",
      uiSchema: { version: "2.0", status: "info", meta: { toolId: "call_ok" } },
    });
    expect(ok!.output).toMatchObject({ result: { module: "calendar", method: "read", data: { count: 1 } } });
    expect(JSON.stringify(ok!.uiSchema)).toContain("Project sync");
    expect(bad).toMatchObject({
      toolCallId: "call_bad",
      args: { module: "calendar", method: "read", input: { mode: "week" } },
      argsSource: "tool_message",
      status: "failure",
      output: { error: { code: "INVALID_ACTION_INPUT" } },
      uiSchema: { status: "error" },
    });

    const { latency } = detail;
    expect(latency.firstEventMs).toBeGreaterThanOrEqual(0);
    expect(latency.firstToolCallMs).toBeGreaterThanOrEqual(latency.firstEventMs!);
    expect(latency.firstTextMs).toBeGreaterThanOrEqual(latency.firstToolCallMs!);
    expect(latency.stages.map((s) => [s.role, s.stage])).toEqual([
      ["user", "input"],
      ["tool", "tool_execution"],
      ["tool", "tool_execution"],
      ["assistant", "answer"],
    ]);
    expect(latency.stages.slice(1).every((s) => typeof s.latencyMs === "number")).toBe(true);
  });

  it("shows a tool call the built-in agent made: streamed arguments, its ToolAgentOutput and card", async () => {
    const run = (await allAliceRuns()).find((r) => r.runId === ids.agentToolRunId)!;
    const detail = await admin.adminRuns.get({ id: run.id });
    expect(detail.toolCalls).toHaveLength(1);
    expect(detail.toolCalls[0]).toMatchObject({
      toolName: "project_cli",
      args: { module: "calendar", method: "read", input: CALENDAR_DAY },
      argsSource: "events",
      status: "success",
      output: { tool_name: "project_cli", tool_call_args: { module: "calendar", method: "read" }, result: { module: "calendar", method: "read" } },
      uiSource: "ui_hints",
      uiSchema: { version: "2.0" },
      stage: "tool_execution",
    });
    expect(detail.toolCalls[0]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(detail.latency.stages.map((s) => s.role)).toEqual(["user", "tool", "assistant"]);
  });

  it("shows a failed run's error", async () => {
    const detail = await admin.adminRuns.get({ id: ids.failedRun });
    expect(detail.run).toMatchObject({ status: "failed", errorCode: "UNPROCESSABLE", errorMessage: "The model refused the request" });
    expect(detail.toolCalls).toEqual([]);
    expect(detail.latency.firstTextMs).toBeNull();
  });

  it("answers NOT_FOUND for an unknown run", async () => {
    await expect(admin.adminRuns.get({ id: randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("adminRuns.events", () => {
  it("returns every persisted event in order, 500 a page", async () => {
    const run = (await allAliceRuns()).find((r) => r.runId === ids.longRunId)!;
    const { eventCount } = await admin.adminRuns.get({ id: run.id });
    expect(eventCount).toBeGreaterThan(600);
    const first = await admin.adminRuns.events({ id: run.id });
    expect(first.items).toHaveLength(500);
    expect(first.nextCursor).toBe(500);
    const second = await admin.adminRuns.events({ id: run.id, cursor: first.nextCursor! });
    expect(second.nextCursor).toBeNull();
    const all = [...first.items, ...second.items];
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: eventCount }, (_, i) => i + 1));
    expect(all[0]).toMatchObject({ type: "RUN_STARTED", createdAt: expect.any(Date) });
    expect(JSON.parse(all[0]!.payload)).toMatchObject({ type: "RUN_STARTED", runId: ids.longRunId });
    expect(all.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(600);
    expect(all.at(-1)!.type).toBe("RUN_FINISHED");
  });
});

describe("adminThreads", () => {
  it("lists threads with their owner and counts, paged", async () => {
    const all = (await admin.adminThreads.list({ userEmail: alice.email, limit: 100 })).items;
    expect(all).toHaveLength(ALICE_THREADS);
    expect(all.find((t) => t.id === ids.twoRunThread)).toMatchObject({ userEmail: alice.email, runCount: 2, messageCount: 4, title: "thread one" });
    const first = await admin.adminThreads.list({ userEmail: alice.email, limit: 5 });
    const second = await admin.adminThreads.list({ userEmail: alice.email, limit: 5, cursor: first.nextCursor! });
    expect(second.nextCursor).toBeNull();
    expect([...first.items, ...second.items].map((t) => t.id)).toEqual(all.map((t) => t.id));
  });

  it("shows a thread's runs and its messages with their metadata and tool cards", async () => {
    const detail = await admin.adminThreads.get({ id: ids.twoRunThread });
    expect(detail.thread).toMatchObject({ id: ids.twoRunThread, userEmail: alice.email });
    expect(detail.runs.map((r) => r.status)).toEqual(["completed", "completed"]);
    const page = await admin.adminThreads.messages({ id: ids.twoRunThread, limit: 3 });
    expect(page.items.map((m) => [m.seq, m.role, m.content])).toEqual([
      [1, "user", "thread one"],
      [2, "assistant", "You said: thread one"],
      [3, "user", "thread two"],
    ]);
    expect(page.items[1]!.metadata).toMatchObject({ stage: "answer", latency_ms: expect.any(Number), run_id: expect.any(String) });
    expect((await admin.adminThreads.messages({ id: ids.twoRunThread, cursor: page.nextCursor! })).items.map((m) => m.seq)).toEqual([4]);

    const toolThread = (await admin.adminRuns.get({ id: ids.toolRun })).run.threadId;
    const toolMessages = (await admin.adminThreads.messages({ id: toolThread })).items.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.uiSchema?.status)).toEqual(["info", "error"]);
  });

  it("answers NOT_FOUND for an unknown thread", async () => {
    await expect(admin.adminThreads.get({ id: randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("adminDashboard.get", () => {
  it("counts runs per hour, errors, durations and tool failures in the window", async () => {
    for (const window of ["24h", "7d"] as const) {
      const d = await admin.adminDashboard.get({ window });
      expect(d.perHour).toHaveLength(window === "24h" ? 24 : 168);
      const hours = d.perHour.map((b) => b.hour.getTime());
      expect(hours.every((h, i) => i === 0 || h - hours[i - 1]! === 3_600_000)).toBe(true);
      expect(d.perHour.reduce((n, b) => n + b.runs, 0)).toBeGreaterThanOrEqual(10);
      expect(d.perHour.reduce((n, b) => n + b.failed, 0)).toBeGreaterThanOrEqual(1);
      expect(d.runs.total).toBeGreaterThanOrEqual(10);
      expect(d.runs.failed).toBeGreaterThanOrEqual(1);
      expect(d.runs.cancelled).toBeGreaterThanOrEqual(1);
      expect(d.runs.errorRate).toBeCloseTo(d.runs.failed / (d.runs.completed + d.runs.failed + d.runs.cancelled));
      expect(d.runs.p50Ms).toEqual(expect.any(Number));
      expect(d.runs.p95Ms!).toBeGreaterThanOrEqual(d.runs.p50Ms!);
      expect(d.tools.total).toBeGreaterThanOrEqual(2);
      expect(d.tools.failed).toBeGreaterThanOrEqual(1);
      expect(d.tools.failed).toBeLessThan(d.tools.total);
      expect(d.tools.failureRate).toBeCloseTo(d.tools.failed / d.tools.total);
    }
  });
});
