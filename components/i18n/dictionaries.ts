import { en } from "./en";
import { zhCN } from "./zh-cn";
import type { Locale } from "./locales";

// One typed dictionary per language: the English one defines the shape (strings, and small
// functions where words wrap a value), and the compiler holds every other language to it.

export type Dictionary = typeof en;

export const dictionaries: Record<Locale, Dictionary> = { en, "zh-CN": zhCN };
