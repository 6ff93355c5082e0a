import { EventType } from "@ag-ui/core";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { RunStateKeeper } from "./state-keeper";

const saved: { threadId: string; runId: string; json: string }[] = [];
vi.mock("./repository/thread-states", () => ({ saveThreadState: async (row: { threadId: string; runId: string; json: string }) => void saved.push(row) }));

const run = { id: "run-1", threadId: "thread-1" };
const snapshot = (state: unknown): AgUiEvent => ({ type: EventType.STATE_SNAPSHOT, snapshot: state });
const delta = (ops: unknown[]): AgUiEvent => ({ type: EventType.STATE_DELTA, delta: ops as never });

async function keep(fromThread: boolean, events: AgUiEvent[]): Promise<unknown> {
  const keeper = new RunStateKeeper(run, fromThread);
  for (const e of events) keeper.observe(e);
  await keeper.save();
  return saved.length > 0 ? JSON.parse(saved.at(-1)!.json) : undefined;
}

describe("RunStateKeeper", () => {
  beforeEach(() => void (saved.length = 0));

  it("keeps a client's state, and the state its deltas leave", async () => {
    expect(await keep(false, [snapshot({ a: 1 })])).toEqual({ a: 1 });
    expect(await keep(true, [snapshot({ a: 1 }), delta([{ op: "replace", path: "/a", value: 2 }]), delta([{ op: "add", path: "/b", value: [] }])])).toEqual({ a: 2, b: [] });
  });

  it("writes nothing for a run that only continued from the kept state, or had none", async () => {
    expect(await keep(true, [snapshot({ a: 1 })])).toBeUndefined();
    expect(await keep(false, [])).toBeUndefined();
  });

  it("leaves the events it reads as they were", async () => {
    const first = snapshot({ list: [1] });
    const ops = [{ op: "add", path: "/list/-", value: { x: 1 } }];
    await keep(false, [first, delta(ops)]);
    expect(first).toEqual(snapshot({ list: [1] }));
    expect(ops).toEqual([{ op: "add", path: "/list/-", value: { x: 1 } }]);
  });

  it("keeps nothing after a delta that does not apply, until a snapshot replaces the state", async () => {
    expect(await keep(false, [snapshot({ a: 1 }), delta([{ op: "remove", path: "/missing" }])])).toBeUndefined();
    expect(await keep(false, [snapshot({ a: 1 }), delta([{ op: "remove", path: "/missing" }]), snapshot({ c: 3 })])).toEqual({ c: 3 });
  });

  it("keeps nothing that breaks the state rules", async () => {
    expect(await keep(false, [snapshot({ a: 1 }), delta([{ op: "add", path: "/password", value: "p" }])])).toBeUndefined();
  });
});
