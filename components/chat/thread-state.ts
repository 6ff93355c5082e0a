import { EventType, type BaseEvent } from "@ag-ui/core";
import { applyJsonPatch, jsonPatchOperationSchema } from "@/server/lib/json-patch";

// The thread's shared state as the chat shows it (docs/ag-ui.md, "Shared state"): the state kept
// with the thread when the page loaded, then each run's STATE_SNAPSHOT (which replaces it) and
// STATE_DELTA (RFC 6902 operations, applied in order) as they stream, so a live run, a replay of
// its log and a reload show the same state.

export type ThreadState = Record<string, unknown>;

export type PlanStatus = "pending" | "in_progress" | "done";
export type PlanStep = { description: string; status: PlanStatus };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const operationsSchema = jsonPatchOperationSchema.array();

/** The state after one event; events other than state events, and a patch that does not apply, leave it as it was. */
export function applyStateEvent(state: ThreadState | null, event: BaseEvent): ThreadState | null {
  if (event.type === EventType.STATE_SNAPSHOT) {
    const snapshot = (event as { snapshot?: unknown }).snapshot;
    return isObject(snapshot) ? snapshot : null;
  }
  if (event.type !== EventType.STATE_DELTA) return state;
  const parsed = operationsSchema.safeParse((event as { delta?: unknown }).delta);
  if (!parsed.success) return state;
  try {
    const next = applyJsonPatch(state ?? {}, parsed.data);
    return isObject(next) ? next : state;
  } catch {
    // The server applied it to the same state; a copy that diverged is replaced by the next snapshot.
    return state;
  }
}

/** The state holds something worth a panel. */
export function hasState(state: ThreadState | null): state is ThreadState {
  return state !== null && Object.values(state).some((v) => v !== null && v !== undefined);
}

function statusOf(value: unknown): PlanStatus {
  if (value === "done" || value === "completed" || value === "complete") return "done";
  if (value === "in_progress" || value === "in-progress" || value === "executing" || value === "running") return "in_progress";
  return "pending";
}

/** The agent's plan (`state.plan.steps`, the convention of docs/ag-ui.md), or null when the state has none. */
export function planOf(state: ThreadState | null): PlanStep[] | null {
  const plan = state?.plan;
  const steps = isObject(plan) ? plan.steps : Array.isArray(plan) ? plan : null;
  if (!Array.isArray(steps)) return null;
  return steps.map((step) => {
    if (typeof step === "string") return { description: step, status: "pending" as const };
    const s = isObject(step) ? step : {};
    const description = typeof s.description === "string" ? s.description : typeof s.title === "string" ? s.title : "";
    return { description, status: statusOf(s.status) };
  });
}

/** The state without its plan: what the panel shows as a tree of keys and values. */
export function restOf(state: ThreadState | null): ThreadState {
  if (!state) return {};
  const rest: ThreadState = {};
  for (const [key, value] of Object.entries(state)) {
    if (key === "plan" && planOf(state) !== null) continue;
    if (value !== null && value !== undefined) rest[key] = value;
  }
  return rest;
}

/** "recipe_title" / "recipeTitle" → "Recipe title": a key as a label a person reads. */
export function labelOf(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}
