"use client";

import { useMemo, useState, useSyncExternalStore } from "react";
import { useRouter } from "next/navigation";
import { useI18n } from "@/components/i18n/use-dictionary";
import { LOCALE_COOKIE, LOCALE_NAMES, LOCALES, TIME_ZONE_COOKIE, isLocale } from "@/components/i18n/locales";
import { saveTheme, useTheme } from "@/components/chat/theme-toggle";
import { isTheme, THEMES } from "@/components/chat/theme";

// Time zone, language and theme. The first two are cookies the server reads to render in
// them (components/i18n/request-locale.ts); the theme lives in this browser's storage, shared
// by the chat and the console.

const YEAR = 60 * 60 * 24 * 365;
const noSubscription = () => () => {};

function setCookie(name: string, value: string | null): void {
  document.cookie = value === null ? `${name}=; path=/; max-age=0; samesite=lax` : `${name}=${encodeURIComponent(value)}; path=/; max-age=${YEAR}; samesite=lax`;
}

function cookieValue(name: string): string | null {
  const found = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
  return found ? decodeURIComponent(found.slice(name.length + 1)) : null;
}

export function PreferencesSection() {
  const { t, chosenTimeZone } = useI18n();
  const router = useRouter();
  const theme = useTheme();
  const browserZone = useSyncExternalStore(noSubscription, () => Intl.DateTimeFormat().resolvedOptions().timeZone, () => "UTC");
  const chosenLocale = useSyncExternalStore(noSubscription, () => cookieValue(LOCALE_COOKIE), () => null);
  const zones = useMemo(() => Intl.supportedValuesOf("timeZone"), []);
  const [saved, setSaved] = useState(false);

  const save = (name: string, value: string | null) => {
    setCookie(name, value);
    setSaved(true);
    router.refresh();
  };

  return (
    <section className="settings-section" aria-labelledby="settings-preferences">
      <h2 id="settings-preferences" className="settings-heading">
        {t.settings.preferences}
      </h2>
      <div className="settings-field">
        <label htmlFor="settings-language">{t.settings.language}</label>
        <select
          id="settings-language"
          className="input"
          data-testid="settings-language"
          value={isLocale(chosenLocale) ? chosenLocale : ""}
          onChange={(e) => save(LOCALE_COOKIE, e.target.value || null)}
        >
          <option value="">{t.settings.followBrowserLanguage}</option>
          {LOCALES.map((locale) => (
            <option key={locale} value={locale} lang={locale}>
              {LOCALE_NAMES[locale]}
            </option>
          ))}
        </select>
        <p className="muted">{t.settings.languageHelp}</p>
      </div>
      <div className="settings-field">
        <label htmlFor="settings-time-zone">{t.settings.timeZone}</label>
        <select id="settings-time-zone" className="input" data-testid="settings-time-zone" value={chosenTimeZone ?? ""} onChange={(e) => save(TIME_ZONE_COOKIE, e.target.value || null)}>
          <option value="">{t.settings.followBrowser(browserZone)}</option>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </select>
        <p className="muted">{t.settings.timeZoneHelp}</p>
      </div>
      <div className="settings-field">
        <label htmlFor="settings-theme">{t.settings.theme}</label>
        <select
          id="settings-theme"
          className="input"
          data-testid="settings-theme"
          value={theme}
          onChange={(e) => {
            if (!isTheme(e.target.value)) return;
            saveTheme(e.target.value);
            setSaved(true);
          }}
        >
          {THEMES.map((choice) => (
            <option key={choice} value={choice}>
              {t.chat.theme[choice]}
            </option>
          ))}
        </select>
        <p className="muted">{t.settings.themeHelp}</p>
      </div>
      <p role="status" className="muted" data-testid="settings-saved">
        {saved ? t.settings.saved : ""}
      </p>
    </section>
  );
}
