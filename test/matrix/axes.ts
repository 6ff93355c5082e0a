import type { Axis, Combination } from "./pairwise";

// The run path's axes: every way in (door), who answers (executor), what the user sends (input),
// which tool the turn uses, and how the client receives the run (delivery).

export const DOORS = ["seed", "ag-ui", "agent-api", "web"] as const;
export const EXECUTORS = ["builtin", "runner"] as const;
export const INPUTS = ["text", "image", "file"] as const;
export const TOOLS = ["none", "cli-read", "cli-write-approval", "frontend"] as const;
export const DELIVERIES = ["stream", "background", "resume"] as const;

export type Cell = {
  door: (typeof DOORS)[number];
  executor: (typeof EXECUTORS)[number];
  input: (typeof INPUTS)[number];
  tools: (typeof TOOLS)[number];
  delivery: (typeof DELIVERIES)[number];
};

export const AXES: Axis[] = [
  { name: "door", values: DOORS },
  { name: "executor", values: EXECUTORS },
  { name: "input", values: INPUTS },
  { name: "tools", values: TOOLS },
  { name: "delivery", values: DELIVERIES },
];

export function cellOf(c: Combination): Cell {
  const [door, executor, input, tools, delivery] = c;
  return { door, executor, input, tools, delivery } as Cell;
}

export const cellName = (c: Cell) => `${c.door} × ${c.executor} × ${c.input} × ${c.tools} × ${c.delivery}`;

/** Why a cell cannot run, or null. Each reason is a property of the product, not of the tests. */
export function whyNotApplicable(combination: Combination): string | null {
  const c = cellOf(combination);
  if (c.door === "web" && c.tools === "frontend") return "the web chat declares no client tools";
  if (c.door === "agent-api" && c.delivery === "background") return "the Agent API has no 202: `stream: false` answers once the response has ended";
  return null;
}
