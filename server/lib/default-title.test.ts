import { describe, expect, it } from "vitest";
import { defaultTitle } from "./default-title";

describe("a new thread's default title", () => {
  it("keeps a short first message as it is", () => {
    expect(defaultTitle("Hello there")).toBe("Hello there");
    expect(defaultTitle("thread number 6")).toBe("thread number 6");
    expect(defaultTitle("What's on my calendar tomorrow?")).toBe("What's on my calendar tomorrow?");
    expect(defaultTitle("   ")).toBe("New chat");
  });

  it("drops an opening greeting, politeness and every sentence after the first", () => {
    expect(defaultTitle("Hi! Can you schedule a call with Ana on Friday at 10? She asked yesterday.")).toBe("Schedule a call with Ana on Friday at 10?");
    expect(defaultTitle("Please find Ana's email.")).toBe("Find Ana's email");
    expect(defaultTitle("你好，请帮我查一下明天的天气。谢谢！")).toBe("请帮我查一下明天的天气");
    expect(defaultTitle("请假申请怎么写？")).toBe("请假申请怎么写？");
    expect(defaultTitle("## Notes\n\n**Summarize** this text")).toBe("Notes Summarize this text");
  });

  it("cuts a long sentence at a word, with an ellipsis", () => {
    const title = defaultTitle("Write a detailed comparison of the three travel insurance offers we received for the trip to Lisbon in March");
    expect(title).toBe("Write a detailed comparison of the three travel insurance…");
    expect(title.length).toBeLessThanOrEqual(60);
  });
});
