"use client";

import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary, useI18n } from "@/components/i18n/use-dictionary";
import { ChoicePicker, storedChoice } from "./choice-picker";

// The chat's choice of agent, when the user has several bound to them (tRPC runners.mine,
// docs/agents.md#choosing-an-agent). Kept in this browser (localStorage) and sent with each run as
// forwardedProps.agent; a choice no longer offered is dropped, so the host picks as it would.

const choice = storedChoice("dispatch.chat.agent");

/** The agent (a binding id) the user picked for the next run, if still offered; undefined for the host's choice. */
export function selectedAgent(): string | undefined {
  return choice.selected();
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
  useEffect(() => {
    if (agents.data) choice.offer(agents.data.map((a) => a.id));
  }, [agents.data]);
  const options = (agents.data ?? []).map((a) => ({ id: a.id, label: labelFor(a.label, locale) || a.runnerId, default: a.default }));
  return <ChoicePicker choice={choice} options={options} label={t.agent} title={t.agentTitle} testId="agent-picker" />;
}
