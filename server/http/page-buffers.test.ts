import { describe, expect, it } from "vitest";
import { releasePageBuffer, takePageBuffer } from "./page-buffers";

describe("page buffers", () => {
  it("hands out a buffer at least as large as asked, and never the same one twice while it is held", () => {
    const a = takePageBuffer(100_000)!;
    const b = takePageBuffer(100_000)!;
    expect(a.length).toBeGreaterThanOrEqual(100_000);
    expect(b.buffer).not.toBe(a.buffer);
    releasePageBuffer(a);
    releasePageBuffer(b);
  });

  it("reuses a released buffer that fits, the smallest that does", () => {
    const small = takePageBuffer(70_000)!;
    const large = takePageBuffer(1_000_000)!;
    releasePageBuffer(large);
    releasePageBuffer(small);
    const forLarge = takePageBuffer(900_000)!;
    expect(forLarge.buffer).toBe(large.buffer);
    const forSmall = takePageBuffer(60_000)!;
    expect(forSmall.length).toBeLessThan(900_000);
    releasePageBuffer(forLarge);
    releasePageBuffer(forSmall);
  });

  it("keeps no buffer for a page above what the pool holds", () => {
    expect(takePageBuffer(64 * 1024 * 1024)).toBeNull();
  });
});
