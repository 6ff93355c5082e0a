import "server-only";
import { cookies, headers } from "next/headers";
import { dictionaries, type Dictionary } from "./dictionaries";
import { BROWSER_TIME_ZONE_COOKIE, isLocale, localeFromAcceptLanguage, LOCALE_COOKIE, TIME_ZONE_COOKIE, validTimeZone, type Locale } from "./locales";

/** This request's language: the user's choice (cookie) else the browser's Accept-Language. */
export async function requestLocale(): Promise<Locale> {
  const chosen = (await cookies()).get(LOCALE_COOKIE)?.value;
  if (isLocale(chosen)) return chosen;
  return localeFromAcceptLanguage((await headers()).get("accept-language"));
}

/** The words for this request's language, for server components. */
export async function requestDictionary(): Promise<Dictionary> {
  return dictionaries[await requestLocale()];
}

/**
 * The zone to render dates in: the one the user chose in settings, else the browser's own
 * (which the page reports in a cookie once it runs), else UTC until then.
 */
export async function requestTimeZone(): Promise<{ timeZone: string; chosen: string | null }> {
  const jar = await cookies();
  const chosen = validTimeZone(jar.get(TIME_ZONE_COOKIE)?.value);
  return { timeZone: chosen ?? validTimeZone(jar.get(BROWSER_TIME_ZONE_COOKIE)?.value) ?? "UTC", chosen };
}
