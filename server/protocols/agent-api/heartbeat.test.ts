import { describe, expect, it } from "vitest";
import { HEARTBEAT, withHeartbeats } from "./heartbeat";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("withHeartbeats", () => {
  it("passes a quick source through unchanged", async () => {
    async function* quick() {
      yield* [1, 2, 3];
    }
    const seen: unknown[] = [];
    for await (const item of withHeartbeats(quick(), 60_000)) seen.push(item);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("fills a silence with heartbeats, losing and reordering nothing", async () => {
    const resume = gate();
    async function* slow() {
      yield "a";
      await resume.opened; // silent until the consumer has seen a heartbeat
      yield "b";
    }
    const seen: unknown[] = [];
    for await (const item of withHeartbeats(slow(), 5)) {
      seen.push(item);
      if (item === HEARTBEAT) resume.open();
    }
    expect(seen[0]).toBe("a");
    expect(seen.at(-1)).toBe("b");
    expect(seen.slice(1, -1).length).toBeGreaterThanOrEqual(1);
    expect(seen.slice(1, -1).every((item) => item === HEARTBEAT)).toBe(true);
  });

  it("lets the consumer stop during a silence; the source ends when its owner aborts it", async () => {
    const abort = new AbortController();
    const ended = gate();
    async function* waitsForAbort() {
      try {
        yield "first";
        await new Promise((resolve) => abort.signal.addEventListener("abort", resolve));
      } finally {
        ended.open();
      }
    }
    const seen: unknown[] = [];
    for await (const item of withHeartbeats(waitsForAbort(), 5)) {
      seen.push(item);
      if (item === HEARTBEAT) break;
    }
    expect(seen).toEqual(["first", HEARTBEAT]);
    abort.abort();
    await ended.opened;
  });
});
