// A deterministic all-pairs (pairwise) covering generator with constraints. Every pair of values
// of two different axes that some applicable combination holds is covered by at least one chosen
// combination; pairs that no applicable combination holds are reported with the reason. Greedy:
// enumerate the full product in order, pick the applicable combination that covers the most pairs
// not covered yet (the earliest on a tie), until none is left. Same axes, same answer.

export type Axis<V extends string = string> = { name: string; values: readonly V[] };
export type Combination = readonly string[];
/** Why a combination cannot run, or null when it can. */
export type Applicability = (combination: Combination) => string | null;

export type Uncoverable = { pair: [string, string]; combination: Combination; reason: string };
export type Covering = { chosen: Combination[]; uncoverable: Uncoverable[]; product: number };

export function product(axes: readonly Axis[]): Combination[] {
  return axes.reduce<Combination[]>((acc, axis) => acc.flatMap((prefix) => axis.values.map((v) => [...prefix, v])), [[]]);
}

/** The keys of the pairs a combination holds: `i=value|j=value` for every i < j. */
export function pairsOf(combination: Combination): string[] {
  const keys: string[] = [];
  for (let i = 0; i < combination.length; i++) {
    for (let j = i + 1; j < combination.length; j++) keys.push(`${i}=${combination[i]}|${j}=${combination[j]}`);
  }
  return keys;
}

export function allPairs(axes: readonly Axis[], applicable: Applicability): Covering {
  const all = product(axes);
  const runnable = all.filter((c) => applicable(c) === null);
  const uncovered = new Set(runnable.flatMap(pairsOf));
  const chosen: Combination[] = [];
  while (uncovered.size > 0) {
    let best: Combination | null = null;
    let bestGain = 0;
    for (const c of runnable) {
      const gain = pairsOf(c).filter((p) => uncovered.has(p)).length;
      if (gain > bestGain) [best, bestGain] = [c, gain];
    }
    chosen.push(best!);
    for (const p of pairsOf(best!)) uncovered.delete(p);
  }
  const coverable = new Set(runnable.flatMap(pairsOf));
  const uncoverable: Uncoverable[] = [];
  const seen = new Set<string>();
  for (const c of all) {
    const reason = applicable(c);
    if (reason === null) continue;
    for (const key of pairsOf(c)) {
      if (coverable.has(key) || seen.has(key)) continue;
      seen.add(key);
      const [a, b] = key.split("|").map((side) => {
        const [i, value] = side.split("=");
        return `${axes[Number(i)]!.name}=${value}`;
      });
      uncoverable.push({ pair: [a!, b!], combination: c, reason });
    }
  }
  return { chosen, uncoverable, product: all.length };
}
