import { describe, expect, it } from "vitest";
import { pendingStreamWork, queueStreamWork } from "./stream-slices";

/** Keeps the CPU busy for `ms`, as parsing a burst of tokens does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning
  }
}

function settled(): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (pendingStreamWork() === 0 ? resolve() : setImmediate(check));
    check();
  });
}

describe("stream slices", () => {
  it("runs queued work in order, after the current turn", async () => {
    const order: string[] = [];
    queueStreamWork(() => order.push("a"));
    queueStreamWork(() => order.push("b"));
    order.push("caller");
    await settled();
    expect(order).toEqual(["caller", "a", "b"]);
  });

  it("lets timers and I/O run between slices of a long burst", async () => {
    const order: string[] = [];
    for (let i = 0; i < 40; i++) {
      queueStreamWork(() => {
        busy(0.5);
        order.push(`work${i}`);
      });
    }
    const timerFired = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push("timer");
        resolve();
      }, 0),
    );
    await timerFired;
    await settled();
    // 20 ms of work: the timer got its turn long before the burst ended.
    const timerAt = order.indexOf("timer");
    expect(timerAt).toBeGreaterThan(0);
    expect(timerAt).toBeLessThan(20);
    expect(order.filter((e) => e !== "timer")).toEqual(Array.from({ length: 40 }, (_, i) => `work${i}`));
  });

  it("goes on with the rest when one piece of work throws", async () => {
    const order: string[] = [];
    queueStreamWork(() => {
      throw new Error("a reader's bug");
    });
    queueStreamWork(() => order.push("after"));
    await settled();
    expect(order).toEqual(["after"]);
  });
});
