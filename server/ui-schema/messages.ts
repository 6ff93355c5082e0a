import "server-only";

// The compiler writes the card's words, so they follow the document's locale. Only the
// languages the product is used in are here; anything else falls back to English. These are
// the words every card shares; a tool module keeps its own beside it, in the same languages.

export type Language = "en" | "zh";

/** A module's words in every language the cards are written in. */
export type Translations<W> = Record<Language, W>;

export type UiMessages = {
  showing: (shown: number, total: number) => string;
  errorTitle: (operation: string | undefined) => string;
  errorBadge: string;
  errorCode: string;
  retryable: string;
};

const common: Translations<UiMessages> = {
  en: {
    showing: (shown, total) => `Showing ${shown} of ${total}`,
    errorTitle: (operation) => (operation ? `Couldn't complete ${operation}` : "Something went wrong"),
    errorBadge: "Error",
    errorCode: "Error code",
    retryable: "This may work if you try again.",
  },
  zh: {
    showing: (shown, total) => `显示 ${shown} / ${total}`,
    errorTitle: (operation) => (operation ? `${operation} 执行失败` : "出错了"),
    errorBadge: "错误",
    errorCode: "错误代码",
    retryable: "可以稍后重试。",
  },
};

/** The language of a BCP 47 locale, by its language subtag. */
export function languageOf(locale: string): Language {
  return locale.toLowerCase().split("-")[0] === "zh" ? "zh" : "en";
}

/** The shared words for a BCP 47 locale. */
export function messagesFor(locale: string): UiMessages {
  return common[languageOf(locale)];
}
