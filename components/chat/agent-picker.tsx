"use client";

import { useEffect, useSyncExternalStore } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary, useI18n } from "@/components/i18n/use-dictionary";

// The chat's choice of agent, when the user has several bound to them (tRPC runners.mine,
// docs/agents.md#choosing-an-agent). Kept in this browser (localStorage) and sent with each run as
// forwardedProps.agent; a choice no longer offered is dropped, so the host picks as it would.

const STORAGE_KEY = "dispatch.chat.agent";
const listeners = new Set<() => void>();
let offered: ReadonlySet<string> | null = null;

function stored(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function choose(id: string | null): void {
  try {
    if (id) window.localStorage.setItem(STORAGE_KEY, id);
    else window.localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts until the page is left.
  }
  for (const listener of listeners) listener();
}

/** The agent (a binding id) the user picked for the next run, if still offered; undefined for the host's choice. */
export function selectedAgent(): string | undefined {
  const id = stored();
  return id && offered?.has(id) ? id : undefined;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A manifest label ({en_US, zh_Hans, …}) in the page's language, else English, else any. */
export function labelFor(label: Record<string, string>, locale: string): string {
  const entries = Object.entries(label);
  const lang = locale.slice(0, 2).toLowerCase();
  const match = entries.find(([k]) => k.slice(0, 2).toLowerCase() === lang) ?? entries.find(([k]) => k.startsWith("en")) ?? entries[0];
  return match?.[1] ?? "";
}

export function AgentPicker() {
  const t = useDictionary().chat;
  const { locale } = useI18n();
  const trpc = useTRPC();
  const agents = useQuery(trpc.runners.mine.queryOptions(undefined, { staleTime: 60_000 }));
  const choice = useSyncExternalStore(subscribe, stored, () => null);
  const list = agents.data ?? [];
  useEffect(() => {
    if (agents.data) offered = new Set(agents.data.map((a) => a.id));
  }, [agents.data]);
  if (list.length < 2) return null;
  const fallback = list.find((a) => a.default) ?? list[0]!;
  const value = choice && list.some((a) => a.id === choice) ? choice : fallback.id;
  return (
    <label className="chat-model-picker" data-testid="agent-picker">
      <span className="sr-only">{t.agent}</span>
      <select value={value} title={t.agentTitle} onChange={(e) => choose(e.target.value === fallback.id ? null : e.target.value)}>
        {list.map((a) => (
          <option key={a.id} value={a.id}>
            {labelFor(a.label, locale) || a.runnerId}
          </option>
        ))}
      </select>
    </label>
  );
}
