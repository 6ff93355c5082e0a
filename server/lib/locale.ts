import "server-only";

/**
 * The language a run's client asked for (AG-UI's `forwardedProps.locale`, a BCP 47 tag, which
 * the web chat sends from the user's choice), canonicalized; undefined when absent or not a
 * language tag, so each caller keeps its own default.
 */
export function requestedLocale(input: { forwardedProps?: unknown }): string | undefined {
  const props = input.forwardedProps;
  const asked = props && typeof props === "object" ? (props as { locale?: unknown }).locale : undefined;
  if (typeof asked !== "string") return undefined;
  try {
    return Intl.getCanonicalLocales(asked)[0];
  } catch {
    return undefined;
  }
}
