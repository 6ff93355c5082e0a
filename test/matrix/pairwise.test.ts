import { describe, expect, it } from "vitest";
import { allPairs, pairsOf, product, type Axis, type Combination } from "./pairwise";
import { AXES, whyNotApplicable } from "./axes";

const everything = () => null;

function coveredBy(chosen: Combination[]): Set<string> {
  return new Set(chosen.flatMap(pairsOf));
}

describe("allPairs", () => {
  it("covers three two-valued axes with four combinations, not the product's eight", () => {
    const axes: Axis[] = ["a", "b", "c"].map((name) => ({ name, values: ["0", "1"] }));
    const { chosen, uncoverable, product: size } = allPairs(axes, everything);
    expect(size).toBe(8);
    expect(chosen).toHaveLength(4);
    expect(coveredBy(chosen)).toEqual(new Set(product(axes).flatMap(pairsOf)));
    expect(uncoverable).toEqual([]);
  });

  it("never chooses an excluded combination, and names the pairs only excluded ones hold", () => {
    const axes: Axis[] = [
      { name: "door", values: ["x", "y"] },
      { name: "tool", values: ["none", "client"] },
      { name: "input", values: ["text", "image"] },
    ];
    const why = (c: Combination) => (c[0] === "y" && c[1] === "client" ? "y has no client tools" : null);
    const { chosen, uncoverable } = allPairs(axes, why);
    expect(chosen.every((c) => why(c) === null)).toBe(true);
    expect(uncoverable.map((u) => ({ pair: u.pair, reason: u.reason }))).toEqual([{ pair: ["door=y", "tool=client"], reason: "y has no client tools" }]);
    const runnable = product(axes).filter((c) => why(c) === null);
    expect(coveredBy(chosen)).toEqual(new Set(runnable.flatMap(pairsOf)));
  });

  it("covers every applicable pair of the run-path matrix, the same way on every call", () => {
    const first = allPairs(AXES, whyNotApplicable);
    const runnable = product(AXES).filter((c) => whyNotApplicable(c) === null);
    expect(coveredBy(first.chosen)).toEqual(new Set(runnable.flatMap(pairsOf)));
    expect(first.product).toBe(288);
    // The largest two axes (4 × 4) bound it from below; far fewer than the product.
    expect(first.chosen.length).toBeGreaterThanOrEqual(16);
    expect(first.chosen.length).toBeLessThan(30);
    expect(allPairs(AXES, whyNotApplicable)).toEqual(first);
  });
});
