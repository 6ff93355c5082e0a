// Figures and checks: percentiles, a markdown table, and the spike's correctness claims, each of
// which makes the script exit non-zero when it does not hold.
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

export function table(headers, rows) {
  const lines = [`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

const failures = [];
export function check(claim, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"}  ${claim}${detail ? ` (${detail})` : ""}`);
  if (!ok) failures.push(claim);
}
export const failed = () => failures;

/** Waits for `condition` to hold (checked every 20 ms); rejects after `timeoutMs`. */
export async function waitFor(what, condition, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
