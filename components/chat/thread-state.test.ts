import { describe, expect, it } from "vitest";
import { EventType } from "@ag-ui/core";
import { applyStateEvent, hasState, labelOf, planOf, restOf } from "./thread-state";

const plan = (...statuses: string[]) => ({ plan: { steps: statuses.map((status, i) => ({ description: `Step ${i + 1}`, status })) } });

describe("the chat's copy of a thread's state", () => {
  it("a snapshot replaces it and deltas apply in order, as RFC 6902", () => {
    let state = applyStateEvent({ old: true }, { type: EventType.STATE_SNAPSHOT, snapshot: { ...plan("pending", "pending"), recipe: { title: "Pancakes" } } } as never);
    state = applyStateEvent(state, { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/plan/steps/0/status", value: "done" }, { op: "add", path: "/recipe/servings", value: 4 }] } as never);
    expect(planOf(state)).toEqual([
      { description: "Step 1", status: "done" },
      { description: "Step 2", status: "pending" },
    ]);
    expect(restOf(state)).toEqual({ recipe: { title: "Pancakes", servings: 4 } });
  });

  it("a delta that does not apply leaves the state as it was; other events too", () => {
    const state = plan("done");
    expect(applyStateEvent(state, { type: EventType.STATE_DELTA, delta: [{ op: "remove", path: "/nothing" }] } as never)).toBe(state);
    expect(applyStateEvent(state, { type: EventType.STATE_DELTA, delta: "nonsense" } as never)).toBe(state);
    expect(applyStateEvent(state, { type: EventType.RUN_STARTED } as never)).toBe(state);
  });

  it("a state whose members are all null shows nothing; a plan of strings reads as pending steps", () => {
    expect(hasState({ plan: null })).toBe(false);
    expect(hasState(null)).toBe(false);
    expect(planOf({ plan: ["Buy milk"] })).toEqual([{ description: "Buy milk", status: "pending" }]);
    expect(planOf({ other: 1 })).toBeNull();
    expect(restOf({ plan: "not a plan" })).toEqual({ plan: "not a plan" });
  });

  it("keys read as labels", () => {
    expect(labelOf("recipe_title")).toBe("Recipe title");
    expect(labelOf("cookingTime")).toBe("Cooking time");
  });
});
