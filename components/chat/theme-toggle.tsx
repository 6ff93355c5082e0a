"use client";

import { useSyncExternalStore } from "react";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { MoonIcon, SunIcon, SystemThemeIcon } from "./icons";
import { applyTheme, isTheme, THEME_STORAGE_KEY, THEMES, type Theme } from "./theme";

const listeners = new Set<() => void>();

function readTheme(): Theme {
  try {
    const saved = localStorage.getItem(THEME_STORAGE_KEY);
    return isTheme(saved) ? saved : "system";
  } catch {
    return "system";
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

export function saveTheme(theme: Theme): void {
  try {
    if (theme === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Private mode without storage: the choice lasts for this page only.
  }
  applyTheme(theme);
  for (const l of listeners) l();
}

/** Cycles System → Light → Dark; the button says what is in use now. */
/** The theme in use, following changes from any tab or control. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, readTheme, () => "system" as Theme);
}

export function ThemeToggle() {
  const t = useDictionary();
  const theme = useTheme();
  const labels = t.chat.theme;
  const next = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
  return (
    <button
      type="button"
      className="btn chat-icon-btn"
      data-testid="theme-toggle"
      data-theme-choice={theme}
      aria-label={t.chat.themeSwitch(labels[theme], labels[next])}
      title={t.chat.themeIs(labels[theme])}
      onClick={() => saveTheme(next)}
    >
      {theme === "dark" ? <MoonIcon /> : theme === "light" ? <SunIcon /> : <SystemThemeIcon />}
      <span className="chat-hide-narrow">{labels[theme]}</span>
    </button>
  );
}
