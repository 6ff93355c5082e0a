import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { runStateOf } from "./run-state";
import { SharedState } from "./state-tool";

function shared(initial: Record<string, unknown>) {
  const events: AgUiEvent[] = [];
  return { state: new SharedState(initial, (e) => void events.push(e)), events };
}
const answer = (outcome: { toolResponseText: string }) => JSON.parse(outcome.toolResponseText) as { status: string; error?: { code: string; message: string }; state?: unknown };

describe("update_state", () => {
  it("applies a patch, streams it as one STATE_DELTA, and answers with the new state", () => {
    const { state, events } = shared({ plan: { steps: [{ description: "a", status: "pending" }] } });
    const ops = [{ op: "replace", path: "/plan/steps/0/status", value: "done" }];
    expect(answer(state.update({ operations: ops }))).toEqual({ status: "success", applied: 1, state: { plan: { steps: [{ description: "a", status: "done" }] } } });
    expect(events).toEqual([{ type: EventType.STATE_DELTA, delta: ops }]);
    expect(state.value).toEqual({ plan: { steps: [{ description: "a", status: "done" }] } });
  });

  it("answers bad input, a patch that does not apply, a secret and an oversized state with failures, changing nothing", () => {
    const { state, events } = shared({ a: 1 });
    expect(answer(state.update({ ops: [] })).error?.code).toBe("INVALID_PATCH");
    expect(answer(state.update({ operations: [{ op: "merge", path: "/a" }] })).error?.code).toBe("INVALID_PATCH");
    expect(answer(state.update({ operations: [{ op: "test", path: "/a", value: 2 }] })).error).toEqual({ code: "PATCH_FAILED", message: 'operation 0: test failed: the value at "/a" differs; the state is unchanged' });
    expect(answer(state.update({ operations: [{ op: "add", path: "/token", value: { password: "x" } }] })).error?.code).toBe("INVALID_STATE");
    // A secret's name can come from where a value is moved or copied to, or from a whole new state.
    expect(answer(state.update({ operations: [{ op: "copy", from: "/a", path: "/api_key" }] })).error?.message).toContain("/api_key is named like a credential");
    expect(answer(state.update({ operations: [{ op: "move", from: "/a", path: "/Client-Secret" }] })).error?.code).toBe("INVALID_STATE");
    expect(answer(state.update({ operations: [{ op: "replace", path: "", value: { nested: [{ accessToken: "x" }] } }] })).error?.message).toContain("/nested/0/accessToken");
    expect(answer(state.update({ operations: [{ op: "add", path: "/doc", value: "x".repeat(70_000) }] })).error?.code).toBe("STATE_TOO_LARGE");
    expect(answer(state.update({ operations: [{ op: "remove", path: "" }] })).error?.code).toBe("INVALID_STATE");
    expect(events).toEqual([]);
    expect(state.value).toEqual({ a: 1 });
  });
});

describe("update_state on a large state", () => {
  it("takes any number of small changes, refuses the one past the limit, and answers without the state", () => {
    // About 60 KB of the 64 KiB limit.
    const { state, events } = shared({ doc: "x".repeat(60_000), n: 0 });
    for (let i = 1; i <= 500; i++) expect(answer(state.update({ operations: [{ op: "replace", path: "/n", value: i }] }))).toEqual({ status: "success", applied: 1 });
    expect(state.value.n).toBe(500);
    expect(answer(state.update({ operations: [{ op: "add", path: "/more", value: "y".repeat(6_000) }] })).error?.code).toBe("STATE_TOO_LARGE");
    expect(answer(state.update({ operations: [{ op: "add", path: "/more", value: "y".repeat(3_000) }] })).status).toBe("success");
    expect(Buffer.byteLength(JSON.stringify(state.value))).toBeLessThanOrEqual(64 * 1024);
    // Removing makes room again, though the size followed only grows: the limit is measured when reached.
    expect(answer(state.update({ operations: [{ op: "remove", path: "/doc" }] })).status).toBe("success");
    expect(answer(state.update({ operations: [{ op: "add", path: "/doc2", value: "z".repeat(50_000) }] })).status).toBe("success");
    expect(events).toHaveLength(503);
  });

  it("answers with the state again once it is small", () => {
    const { state } = shared({ doc: "x".repeat(10_000) });
    expect(answer(state.update({ operations: [{ op: "add", path: "/a", value: 1 }] })).state).toBeUndefined();
    expect(answer(state.update({ operations: [{ op: "replace", path: "", value: { a: 1 } }] })).state).toEqual({ a: 1 });
    expect(answer(state.update({ operations: [{ op: "add", path: "/b", value: 2 }] })).state).toEqual({ a: 1, b: 2 });
  });
});

describe("the state a run starts from", () => {
  it("is the input's, or for a run taken over, what its log's snapshot and deltas left", () => {
    const input = { state: { n: 1 } } as never;
    expect(runStateOf(input, undefined)).toEqual({ n: 1 });
    expect(runStateOf({ state: {} } as never, undefined)).toBeNull();
    const resume = {
      events: [
        { type: EventType.STATE_SNAPSHOT, snapshot: { n: 1 } },
        { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/n", value: 2 }] },
        { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/m", value: 3 }] },
      ] as AgUiEvent[],
      interruptedToolCalls: [],
      unansweredToolCalls: [],
    };
    expect(runStateOf(input, resume)).toEqual({ n: 2, m: 3 });
  });
});
