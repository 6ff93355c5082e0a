import { describe, expect, it } from "vitest";
import { dayName, formatTime, localDay } from "./format";
import { localeFromAcceptLanguage } from "./locales";
import { en } from "./en";

describe("the language of a request", () => {
  it("is the first of the browser's languages Dispatch speaks, by quality", () => {
    expect(localeFromAcceptLanguage("zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("zh-TW")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("fr-FR,en-GB;q=0.7,zh;q=0.5")).toBe("en");
    expect(localeFromAcceptLanguage("en;q=0.2, zh;q=0.8")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("de")).toBe("en");
    expect(localeFromAcceptLanguage(null)).toBe("en");
  });
});

describe("dates in the viewer's zone", () => {
  // 23:30 in New York on Thursday is already Friday in UTC.
  const late = "2026-11-27T04:30:00Z";
  const now = new Date("2026-11-27T04:45:00Z");

  it("puts a message under the viewer's own day, not UTC's", () => {
    expect(localDay(late, "America/New_York")).toBe("2026-11-26");
    expect(localDay(late, "UTC")).toBe("2026-11-27");
  });

  it("names days as a person would: today, yesterday, or the weekday and date", () => {
    const words = en.common;
    expect(dayName("2026-11-26", { locale: "en", timeZone: "America/New_York", words, now })).toBe("Today");
    expect(dayName("2026-11-25", { locale: "en", timeZone: "America/New_York", words, now })).toBe("Yesterday");
    expect(dayName("2026-11-20", { locale: "en", timeZone: "America/New_York", words, now })).toBe("Friday, November 20");
    expect(dayName("2025-11-20", { locale: "en", timeZone: "America/New_York", words, now })).toBe("Thursday, November 20, 2025");
    expect(dayName("2026-11-20", { locale: "zh-CN", timeZone: "Asia/Shanghai", words, now })).toBe("11月20日星期五");
  });

  it("writes times on a 24-hour clock in every language", () => {
    expect(formatTime(late, "en", "America/New_York")).toBe("23:30");
    expect(formatTime(late, "zh-CN", "Asia/Shanghai")).toBe("12:30");
  });
});
