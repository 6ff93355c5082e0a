"use client";

import { useEffect, useState } from "react";
import { highlight, type HighlightedLine } from "./highlight";
import { CopyButton } from "./copy-button";
import { useDictionary } from "@/components/i18n/use-dictionary";

// A fenced code block: plain text first (the server's HTML and every streaming frame), then
// the highlighted tokens once the highlighter has loaded this language. The text never
// changes shape, only its colours, so streaming and highlighting do not make it jump.

export function CodeBlock({ code, lang }: { code: string; lang: string | null }) {
  const t = useDictionary();
  const [highlighted, setHighlighted] = useState<{ code: string; lines: HighlightedLine[] } | null>(null);

  useEffect(() => {
    let live = true;
    // A frame of a streaming answer is replaced within milliseconds: wait for the text to rest.
    const timer = setTimeout(() => {
      void highlight(code, lang).then((lines) => {
        if (live && lines) setHighlighted({ code, lines });
      });
    }, 120);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [code, lang]);

  const lines = highlighted?.code === code ? highlighted.lines : null;
  return (
    <div className="md-code" data-testid="code-block" data-lang={lang ?? undefined} data-highlighted={lines ? "true" : "false"}>
      <div className="md-code-head">
        <span>{lang ?? t.chat.code}</span>
        <CopyButton text={code} label={t.chat.copyCode} />
      </div>
      <pre tabIndex={0} aria-label={lang ? t.chat.codeIn(lang) : t.chat.code}>
        <code>
          {lines
            ? lines.map((line, i) => (
                <span key={i} className="md-code-line">
                  {line.map((token, j) => (
                    <span key={j} style={token.style}>
                      {token.content}
                    </span>
                  ))}
                  {"\n"}
                </span>
              ))
            : code}
        </code>
      </pre>
    </div>
  );
}
