import { describe, expect, it } from "vitest";
import { runFiltersFromSearch, runFiltersToSearch } from "./run-filters";

describe("run filters in the URL", () => {
  it("round-trips every filter", () => {
    const filters = {
      statuses: ["failed" as const, "cancelled" as const],
      userEmail: "ana@",
      threadId: "5e55f270-613e-4f45-96cc-ce486ae4ed5f",
      protocol: "ag-ui",
      createdFrom: new Date("2026-11-20T10:00:00.000Z"),
      createdTo: new Date("2026-11-21T10:00:00.000Z"),
      minDurationMs: 1500,
      hasError: true,
    };
    const search = runFiltersToSearch(filters);
    expect(search).toBe(
      "status=failed%2Ccancelled&user=ana%40&thread=5e55f270-613e-4f45-96cc-ce486ae4ed5f&protocol=ag-ui" +
        "&from=2026-11-20T10%3A00%3A00.000Z&to=2026-11-21T10%3A00%3A00.000Z&minMs=1500&error=yes",
    );
    expect(runFiltersFromSearch(Object.fromEntries(new URLSearchParams(search)))).toEqual(filters);
    expect(runFiltersToSearch({})).toBe("");
  });

  it("drops values that do not parse instead of failing the page", () => {
    expect(
      runFiltersFromSearch({ status: "failed,bogus", thread: "not-a-uuid", from: "yesterday", minMs: "-5", error: "maybe", user: ["a@b", "c@d"] }),
    ).toEqual({ statuses: ["failed"], userEmail: "a@b" });
    expect(runFiltersFromSearch({ status: ["completed", "running"], error: "no", minMs: "0" })).toEqual({
      statuses: ["completed", "running"],
      hasError: false,
      minDurationMs: 0,
    });
  });
});
