import { describe, expect, it } from "vitest";
import { demoSummary, summaryRequest } from "./summary-prompt";

describe("the demo model's conversation summary", () => {
  it("names how many messages it read and the user's first and latest request, the same every time", () => {
    const request = summaryRequest([
      { role: "user", content: "we plan a retreat\nin Lisbon" },
      { role: "assistant", content: "Noted." },
      { role: "user", content: "budget is 5000 euros" },
      { role: "assistant", content: "Noted." },
    ]);
    const summary = 'Summary of 4 earlier messages. The user first asked: "we plan a retreat in Lisbon". Latest request: "budget is 5000 euros".';
    expect(demoSummary(request)).toBe(summary);
    expect(demoSummary(request)).toBe(summary);
    expect(demoSummary(summaryRequest([{ role: "assistant", content: "Hello" }]))).toBe("Summary of 1 earlier messages.");
  });
});
