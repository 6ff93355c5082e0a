"use client";

import { useContext } from "react";
import { I18nContext, type I18n } from "./i18n-provider";
import type { Dictionary } from "./dictionaries";
import { requestErrorText } from "./request-error";

export function useDictionary(): Dictionary {
  return useContext(I18nContext).t;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}

/** Says a failed tRPC or REST request in the page's language (request-error.ts). */
export function useRequestErrorText(): (err: unknown) => string {
  const { t, locale } = useContext(I18nContext);
  return (err) => requestErrorText(err, t.requestErrors, locale);
}
