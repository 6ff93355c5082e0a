"use client";

import { createContext, useEffect } from "react";
import { useRouter } from "next/navigation";
import { dictionaries, type Dictionary } from "./dictionaries";
import { BROWSER_TIME_ZONE_COOKIE, DEFAULT_LOCALE, type Locale } from "./locales";

export type I18n = {
  locale: Locale;
  /** The zone dates are shown in (see requestTimeZone). */
  timeZone: string;
  /** The zone the user chose in settings, or null to follow the browser. */
  chosenTimeZone: string | null;
  t: Dictionary;
};

export const I18nContext = createContext<I18n>({ locale: DEFAULT_LOCALE, timeZone: "UTC", chosenTimeZone: null, t: dictionaries[DEFAULT_LOCALE] });

/** The language and zone the server rendered with, for every client component below. */
export function I18nProvider({ locale, timeZone, chosenTimeZone, children }: { locale: Locale; timeZone: string; chosenTimeZone: string | null; children: React.ReactNode }) {
  const router = useRouter();
  useEffect(() => {
    if (chosenTimeZone) return;
    const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!browser || browser === timeZone) return;
    // First visit (or a trip): tell the server this browser's zone and render again in it.
    document.cookie = `${BROWSER_TIME_ZONE_COOKIE}=${encodeURIComponent(browser)}; path=/; max-age=31536000; samesite=lax`;
    // Without cookies (blocked) the server cannot learn it: keep UTC rather than refresh forever.
    if (document.cookie.includes(`${BROWSER_TIME_ZONE_COOKIE}=`)) router.refresh();
  }, [chosenTimeZone, timeZone, router]);
  return <I18nContext value={{ locale, timeZone, chosenTimeZone, t: dictionaries[locale] }}>{children}</I18nContext>;
}
