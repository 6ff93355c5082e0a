import type { HighlighterCore, LanguageRegistration } from "shiki/core";

// Syntax highlighting for code blocks, loaded on first use in the browser only: the shiki
// core, the JavaScript regex engine (no WebAssembly to fetch), two themes and, one by one,
// the few languages an assistant answer usually holds. Each is its own chunk.

export type HighlightedLine = { content: string; style: React.CSSProperties }[];

type LanguageModule = { default: LanguageRegistration[] };

const LANGUAGES: Record<string, () => Promise<LanguageModule>> = {
  typescript: () => import("shiki/langs/typescript.mjs"),
  tsx: () => import("shiki/langs/tsx.mjs"),
  javascript: () => import("shiki/langs/javascript.mjs"),
  json: () => import("shiki/langs/json.mjs"),
  bash: () => import("shiki/langs/bash.mjs"),
  python: () => import("shiki/langs/python.mjs"),
  sql: () => import("shiki/langs/sql.mjs"),
  yaml: () => import("shiki/langs/yaml.mjs"),
  css: () => import("shiki/langs/css.mjs"),
  html: () => import("shiki/langs/html.mjs"),
};

const ALIASES: Record<string, string> = { ts: "typescript", js: "javascript", jsx: "tsx", sh: "bash", shell: "bash", zsh: "bash", py: "python", yml: "yaml", jsonc: "json" };

let highlighter: Promise<HighlighterCore> | null = null;
const loaded = new Map<string, Promise<void>>();

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import("shiki/core"),
      import("shiki/engine/javascript"),
      import("shiki/themes/github-light.mjs"),
      import("shiki/themes/github-dark.mjs"),
    ]);
    return createHighlighterCore({ themes: [light.default, dark.default], langs: [], engine: createJavaScriptRegexEngine() });
  })();
  return highlighter;
}

export function languageOf(lang: string | null): string | null {
  if (!lang) return null;
  const name = ALIASES[lang.toLowerCase()] ?? lang.toLowerCase();
  return name in LANGUAGES ? name : null;
}

// shiki names CSS properties as in a style attribute; React wants them camel-cased.
function toStyle(htmlStyle: Record<string, string> | undefined): React.CSSProperties {
  const style: Record<string, string> = {};
  for (const [key, value] of Object.entries(htmlStyle ?? {})) {
    style[key.startsWith("--") ? key : key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  return style as React.CSSProperties;
}

/** The code's tokens with light colours and `--shiki-dark` ones, or null for a language we do not load. */
export async function highlight(code: string, lang: string | null): Promise<HighlightedLine[] | null> {
  const name = languageOf(lang);
  if (!name) return null;
  const h = await getHighlighter();
  if (!loaded.has(name)) loaded.set(name, LANGUAGES[name]!().then((mod) => h.loadLanguage(...mod.default)));
  await loaded.get(name);
  const { tokens } = h.codeToTokens(code, { lang: name, themes: { light: "github-light", dark: "github-dark" }, defaultColor: "light" });
  return tokens.map((line) => line.map((token) => ({ content: token.content, style: toStyle(token.htmlStyle) })));
}
