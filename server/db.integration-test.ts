import { describe, expect, it } from "vitest";
import { getPool } from "./db";

describe("getPool", () => {
  it("opens connections that never JIT-compile a statement", async () => {
    const { rows } = await getPool().query<{ jit: string }>("show jit");
    expect(rows[0]!.jit).toBe("off");
  });
});
