import { describe, expect, it } from "vitest";
import { ApiCallAuditWriter, type ApiCallRecord } from "./audit";

const record = (action: string): ApiCallRecord => ({ runId: null, runRef: "r", runnerId: null, action, resource: null, scope: null, result: "ok", latencyMs: 1 });

describe("ApiCallAuditWriter", () => {
  it("writes the first row at once and batches the rows that arrive meanwhile", async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const firstInsert = new Promise<void>((r) => (release = r));
    const writer = new ApiCallAuditWriter(async (records) => {
      batches.push(records.map((r) => r.action));
      if (batches.length === 1) await firstInsert;
    });
    const first = writer.record(record("a"));
    const rest = [writer.record(record("b")), writer.record(record("c"))];
    release();
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([["a"], ["b", "c"]]);
  });

  it("keeps the good rows of a batch the database refused", async () => {
    const written: string[] = [];
    let block = true;
    let unblock!: () => void;
    const gate = new Promise<void>((r) => (unblock = r));
    const writer = new ApiCallAuditWriter(async (records) => {
      if (block) {
        block = false;
        await gate;
      }
      if (records.some((r) => r.action === "bad")) throw new Error("foreign key violation");
      written.push(...records.map((r) => r.action));
    });
    const all = [writer.record(record("x")), writer.record(record("good")), writer.record(record("bad")), writer.record(record("fine"))];
    unblock();
    await Promise.all(all);
    expect(written).toEqual(["x", "good", "fine"]);
  });
});
