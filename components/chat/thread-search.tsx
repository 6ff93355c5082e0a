"use client";

import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import Link from "next/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary } from "@/components/i18n/use-dictionary";

// The sidebar's search: a box above the chat list and, while something is typed, the matching
// chats (tRPC threads.search, debounced) in its place. The snippet arrives as plain text with
// match offsets; the marks are React elements, never server HTML. Keyboard: ↓ (or Tab) from the
// box reaches the results (real links), Enter opens the first, ↑/↓ move between them, Escape clears.

const DEBOUNCE_MS = 250;

function useDebounced(value: string): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return debounced;
}

/** The snippet with each `[start, end)` highlight in a <mark>. */
export function markedSnippet(snippet: string, highlights: [number, number][]): ReactNode[] {
  const out: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of highlights) {
    if (start < at || end > snippet.length) continue;
    if (start > at) out.push(snippet.slice(at, start));
    out.push(<mark key={start}>{snippet.slice(start, end)}</mark>);
    at = end;
  }
  if (at < snippet.length) out.push(snippet.slice(at));
  return out;
}

export function ThreadSearchBox({ query, onQuery, onKeyDown }: { query: string; onQuery: (q: string) => void; onKeyDown: (e: KeyboardEvent<HTMLInputElement>) => void }) {
  const t = useDictionary();
  return (
    <div className="chat-search" role="search">
      <label htmlFor="chat-search-input" className="sr-only">
        {t.chat.searchChats}
      </label>
      <input
        id="chat-search-input"
        type="search"
        className="input chat-search-input"
        placeholder={t.chat.searchPlaceholder}
        value={query}
        maxLength={200}
        autoComplete="off"
        aria-controls={query.trim() ? "chat-search-results" : undefined}
        data-testid="thread-search"
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={onKeyDown}
      />
    </div>
  );
}

/** The search state the sidebar holds: the typed query, and keyboard handling between box and results. */
export function useThreadSearch() {
  const [query, setQuery] = useState("");
  const listRef = useRef<HTMLUListElement>(null);
  const links = () => [...(listRef.current?.querySelectorAll<HTMLAnchorElement>("a") ?? [])];
  const clear = () => {
    setQuery("");
    document.getElementById("chat-search-input")?.focus();
  };
  const onBoxKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Escape" && query) {
      // Clears the search only: the phone drawer closes on a second Escape.
      e.preventDefault();
      e.stopPropagation();
      setQuery("");
    } else if (e.key === "ArrowDown" || e.key === "Enter") {
      const first = links()[0];
      if (first) {
        e.preventDefault();
        if (e.key === "Enter") first.click();
        else first.focus();
      }
    }
  };
  const onListKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const all = links();
    const i = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      clear();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = e.key === "ArrowDown" ? i + 1 : i - 1;
      if (next < 0) document.getElementById("chat-search-input")?.focus();
      else all[Math.min(next, all.length - 1)]?.focus();
    }
  };
  return { query, setQuery, listRef, onBoxKeyDown, onListKeyDown, active: query.trim() !== "" };
}

export function ThreadSearchResults(props: { query: string; listRef: React.RefObject<HTMLUListElement | null>; onKeyDown: (e: KeyboardEvent<HTMLUListElement>) => void; onNavigate: () => void; currentId: string | null }) {
  const t = useDictionary();
  const trpc = useTRPC();
  const q = useDebounced(props.query.trim());
  const results = useQuery(trpc.threads.search.queryOptions({ q, limit: 20 }, { enabled: q !== "", placeholderData: keepPreviousData }));
  const hits = results.data ?? [];
  const settled = q === props.query.trim() && !results.isFetching;
  const status = results.error
    ? t.chat.searchFailed
    : !settled || results.isPending
      ? t.chat.searching
      : hits.length === 0
        ? t.chat.searchNoResults(q)
        : t.chat.searchResults(hits.length);

  return (
    <div className="chat-search-results" id="chat-search-results" data-testid="search-results">
      <p className={results.error ? "error-text chat-sidebar-note" : "muted chat-sidebar-note"} role="status" data-testid="search-status">
        {status}
      </p>
      <ul className="chat-thread-list" ref={props.listRef} onKeyDown={props.onKeyDown}>
        {hits.map((hit) => (
          <li key={hit.threadId} className={`chat-thread${hit.threadId === props.currentId ? " chat-thread-current" : ""}`} data-testid="search-hit">
            <Link href={`/chat/${hit.threadId}`} className="chat-search-link" aria-current={hit.threadId === props.currentId ? "page" : undefined} onClick={props.onNavigate}>
              <span className="chat-thread-title">{hit.threadTitle}</span>
              <span className="chat-search-snippet" data-testid="search-snippet">
                {markedSnippet(hit.snippet, hit.highlights)}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
