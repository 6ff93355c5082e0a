// Small helpers the report and the targets share.
import type { StreamLevel } from "./streams";
import type { Group, Memory } from "./tree";

export const n = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : "–");

export type Slope = { pss: number; uss: number };

/** KB per stream between the first and the last level, for the given groups together. */
export function slope(levels: StreamLevel[], groups: Group[]): Slope {
  const first = levels[0];
  const last = levels.at(-1);
  if (!first || !last || last.streams === first.streams) return { pss: NaN, uss: NaN };
  const sum = (l: StreamLevel, k: keyof Memory) => groups.reduce((t, g) => t + l.memory[g][k], 0);
  const per = (k: keyof Memory) => (sum(last, k) - sum(first, k)) / (last.streams - first.streams);
  return { pss: per("pssKb"), uss: per("ussKb") };
}

