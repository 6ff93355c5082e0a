import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { createDemoModel } from "./demo/demo-model";
import { demoSummary, SUMMARY_SYSTEM_PROMPT, summaryRequest } from "./summary-prompt";

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
    expect(demoSummary(summaryRequest([{ role: "assistant", content: "Hello" }]))).toBe("Summary of 1 earlier message.");
  });

  it("is what the offline demo model answers to the host's summarising request", async () => {
    const request = summaryRequest([
      { role: "user", content: "remember that I prefer mornings" },
      { role: "assistant", content: "Got it." },
    ]);
    const model = createDemoModel({ now: () => new Date("2026-01-02T03:00:00Z"), timeZone: "UTC", delayMs: 0 });
    const { text } = await generateText({ model, system: SUMMARY_SYSTEM_PROMPT, prompt: request });
    expect(text).toBe(demoSummary(request));
    expect(text).toBe('Summary of 2 earlier messages. The user first asked: "remember that I prefer mornings".');
  });
});
