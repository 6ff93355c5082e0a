"use client";
import { useI18n } from "../i18n/use-dictionary";
import type { Locale } from "../i18n/locales";
import styles from "./admin.module.css";

type Bucket = { hour: Date; runs: number; failed: number };

const BAR = 10;
const GAP = 2;
const HEIGHT = 100;

function hourLabel(at: Date, withDay: boolean, locale: Locale, timeZone: string): string {
  const parts: Intl.DateTimeFormatOptions = withDay ? { month: "short", day: "numeric", hour: "2-digit", hourCycle: "h23" } : { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  return new Intl.DateTimeFormat(locale, { ...parts, timeZone }).format(at);
}

/** Runs per hour as plain SVG bars, failures stacked in red; the summary is the accessible name. */
export function RunsPerHourChart({ buckets }: { buckets: Bucket[] }) {
  const { locale, timeZone, t: words } = useI18n();
  const t = words.console.chart;
  const label = (at: Date, withDay: boolean) => hourLabel(at, withDay, locale, timeZone);
  const max = Math.max(1, ...buckets.map((b) => b.runs));
  const total = buckets.reduce((n, b) => n + b.runs, 0);
  const peak = buckets.reduce<Bucket | null>((best, b) => (!best || b.runs > best.runs ? b : best), null);
  const multiDay = buckets.length > 24;
  const width = buckets.length * (BAR + GAP);
  const summary = t.summary(total, buckets.length, peak && peak.runs > 0 ? t.peak(peak.runs, label(peak.hour, multiDay)) : null);
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
              <title>{t.bar(label(b.hour, true), b.runs, b.failed)}</title>
              <rect className={styles.chartBar} x={x} y={HEIGHT - h} width={BAR} height={h} />
              {fh > 0 ? <rect className={styles.chartFailed} x={x} y={HEIGHT - fh} width={BAR} height={fh} /> : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="row" style={{ justifyContent: "space-between" }}>
        <span className="muted" style={{ fontSize: 12 }}>
          {first ? label(first.hour, multiDay) : ""}
        </span>
        <span className={styles.legend}>
          <span>
            <span className={styles.swatch} style={{ background: "var(--accent)" }} /> {t.runs}
          </span>
          <span>
            <span className={styles.swatch} style={{ background: "var(--danger)" }} /> {t.failed}
          </span>
          <span>{t.max(max)}</span>
        </span>
        <span className="muted" style={{ fontSize: 12 }}>
          {last ? label(last.hour, multiDay) : ""}
        </span>
      </figcaption>
    </figure>
  );
}
