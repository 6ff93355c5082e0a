// Lets a test wait for "the runner saw the cancel" as a condition instead of sleeping.
export class AbortProbe {
  private seen = 0;
  private waiters: { n: number; resolve: () => void }[] = [];

  /** How many runs saw their AbortSignal fire. */
  get count(): number {
    return this.seen;
  }

  record(): void {
    this.seen += 1;
    this.waiters = this.waiters.filter((w) => (w.n <= this.seen ? (w.resolve(), false) : true));
  }

  /** Resolves once `n` runs in total have seen their abort. */
  waitFor(n = 1): Promise<void> {
    if (this.seen >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }
}

/** Resolves when the signal fires (at once if it already has). */
export const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
