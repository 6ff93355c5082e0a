"use client";

import ReactMarkdown, { type Components } from "react-markdown";
import { useDictionary } from "@/components/i18n/use-dictionary";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./code-block";

// Assistant text as Markdown (GFM: tables, task lists, strikethrough, autolinks). Safe by
// construction: react-markdown builds React elements from the syntax tree and, without
// rehype-raw, never renders HTML the model writes; its URL filter drops javascript: links.
// Rendered the same on the server (history) and in the browser (the live stream), so a
// message looks the same before and after a reload.

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  // Wide tables scroll inside their own box instead of widening the page.
  table: ({ children }) => <MarkdownTable>{children}</MarkdownTable>,
  pre: ({ children }) => <>{children}</>,
  code: ({ className, children }) => {
    const text = String(children ?? "");
    const lang = /language-([\w+-]+)/.exec(className ?? "")?.[1] ?? null;
    // Fenced blocks end with a newline (or carry a language); inline code does neither.
    if (!lang && !text.includes("\n")) return <code className="md-inline-code">{children}</code>;
    return <CodeBlock code={text.replace(/\n$/, "")} lang={lang} />;
  },
  img: ({ src, alt }) => (typeof src === "string" ? <a href={src} target="_blank" rel="noreferrer noopener">{alt || src}</a> : null),
};

// A focusable box, so keyboard users can scroll a wide table.
function MarkdownTable({ children }: { children?: React.ReactNode }) {
  const t = useDictionary();
  return (
    <div className="md-table" tabIndex={0} role="group" aria-label={t.chat.table}>
      <table>{children}</table>
    </div>
  );
}

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  return (
    <div className="md" data-streaming={streaming ? "true" : undefined}>
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
