// The run path's combination matrix (issue #46): door × executor × input × tools × delivery,
// against the real server, each cell checked for the same invariants (test/matrix/invariants.ts):
// valid events, each stored once (the log's replay is what was streamed), /history equal to the
// streams, usage recorded, no secret in any frame or history.
//
// The full product is 4 × 2 × 3 × 4 × 3 = 288 cells. It runs a pairwise (all-pairs) covering set
// instead, generated from the axes by test/matrix/pairwise.ts: every pair of values of two axes
// that an applicable cell can hold is run at least once. Pairs that only inapplicable cells hold
// are listed with the reason (test/matrix/axes.ts). The table of cells is printed at the end.
//
// Alone: npm run build && npx vitest run test/matrix/
import { afterAll, beforeAll, describe, it } from "vitest";
import { AXES, cellName, cellOf, whyNotApplicable } from "./axes";
import { runCell } from "./cell";
import { allPairs } from "./pairwise";
import { startMatrixRunners, type Runners } from "./participants";

const covering = allPairs(AXES, whyNotApplicable);
const outcomes = new Map<string, string>();

let runners: Runners;
beforeAll(async () => {
  runners = await startMatrixRunners();
});

afterAll(async () => {
  await runners?.endpoint.close();
  const rows = covering.chosen.map((c) => [cellName(cellOf(c)), outcomes.get(cellName(cellOf(c))) ?? "not run"]);
  const excluded = new Map<string, string[]>();
  for (const u of covering.uncoverable) {
    const name = cellName(cellOf(u.combination));
    excluded.set(name, [...(excluded.get(name) ?? [u.reason]), u.pair.join(" + ")]);
  }
  for (const [name, [reason, ...pairs]] of excluded) rows.push([name, `n/a: ${reason} (the only cells with ${pairs.join(", ")})`]);
  const width = Math.max(...rows.map(([name]) => name!.length));
  console.log(
    [`Run-path matrix: ${covering.chosen.length} pairwise cells of ${covering.product}`, ...rows.map(([name, outcome]) => `${name!.padEnd(width)}  ${outcome}`)].join("\n"),
  );
});

describe("run-path matrix (pairwise)", () => {
  covering.chosen.forEach((combination, i) => {
    const cell = cellOf(combination);
    it(cellName(cell), async () => {
      outcomes.set(cellName(cell), "FAIL");
      await runCell(cell, runners, i);
      outcomes.set(cellName(cell), "pass");
    });
  });
});
