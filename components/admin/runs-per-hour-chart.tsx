"use client";
import styles from "./admin.module.css";

type Bucket = { hour: Date; runs: number; failed: number };

const BAR = 10;
const GAP = 2;
const HEIGHT = 100;

function hourLabel(at: Date, withDay: boolean): string {
  return at.toLocaleString(undefined, withDay ? { month: "short", day: "numeric", hour: "2-digit", hourCycle: "h23" } : { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

/** Runs per hour as plain SVG bars, failures stacked in red; the summary is the accessible name. */
export function RunsPerHourChart({ buckets }: { buckets: Bucket[] }) {
  const max = Math.max(1, ...buckets.map((b) => b.runs));
  const total = buckets.reduce((n, b) => n + b.runs, 0);
  const peak = buckets.reduce<Bucket | null>((best, b) => (!best || b.runs > best.runs ? b : best), null);
  const multiDay = buckets.length > 24;
  const width = buckets.length * (BAR + GAP);
  const summary = `${total} runs in ${buckets.length} hours${peak && peak.runs > 0 ? `, at most ${peak.runs} in the hour from ${hourLabel(peak.hour, multiDay)}` : ""}`;
  const first = buckets[0];
  const last = buckets.at(-1);
  return (
    <figure style={{ margin: 0 }} data-testid="runs-per-hour">
      <svg className={styles.chart} viewBox={`0 0 ${width} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary}>
        <line className={styles.chartAxis} x1={0} x2={width} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} vectorEffect="non-scaling-stroke" />
        {buckets.map((b, i) => {
          const h = (b.runs / max) * (HEIGHT - 4);
          const fh = (b.failed / max) * (HEIGHT - 4);
          const x = i * (BAR + GAP);
          return (
            <g key={b.hour.getTime()} data-testid="chart-bar" data-runs={b.runs}>
              <title>{`${hourLabel(b.hour, true)}: ${b.runs} runs, ${b.failed} failed`}</title>
              <rect className={styles.chartBar} x={x} y={HEIGHT - h} width={BAR} height={h} />
              {fh > 0 ? <rect className={styles.chartFailed} x={x} y={HEIGHT - fh} width={BAR} height={fh} /> : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="row" style={{ justifyContent: "space-between" }}>
        <span className="muted" style={{ fontSize: 12 }}>
          {first ? hourLabel(first.hour, multiDay) : ""}
        </span>
        <span className={styles.legend}>
          <span>
            <span className={styles.swatch} style={{ background: "var(--accent)" }} /> runs
          </span>
          <span>
            <span className={styles.swatch} style={{ background: "var(--danger)" }} /> failed
          </span>
          <span>max {max}/h</span>
        </span>
        <span className="muted" style={{ fontSize: 12 }}>
          {last ? hourLabel(last.hour, multiDay) : ""}
        </span>
      </figcaption>
    </figure>
  );
}
