"use client";

import { useContext } from "react";
import { I18nContext, type I18n } from "./i18n-provider";
import type { Dictionary } from "./dictionaries";

export function useDictionary(): Dictionary {
  return useContext(I18nContext).t;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}
