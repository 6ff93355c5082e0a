"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import { z } from "zod";
import { useDictionary } from "@/components/i18n/use-dictionary";

// The chat's choice of model, when the server offers more than one (GET /api/v1/models). The
// choice is kept in this browser (localStorage) and sent with each run as forwardedProps.model;
// a choice the server no longer offers is dropped, so the run takes the default.

const STORAGE_KEY = "dispatch.chat.model";
const listSchema = z.object({ data: z.array(z.object({ id: z.string(), label: z.string(), offline: z.boolean().default(false), default: z.boolean() })) });
type ModelEntry = z.infer<typeof listSchema>["data"][number];

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

/** The model the user picked for the next run, if the server offers it; undefined for the default. */
export function selectedModel(): string | undefined {
  const id = stored();
  return id && offered?.has(id) ? id : undefined;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function ModelPicker() {
  const t = useDictionary().chat;
  const [models, setModels] = useState<ModelEntry[]>([]);
  const choice = useSyncExternalStore(subscribe, stored, () => null);
  useEffect(() => {
    const abort = new AbortController();
    fetch("/api/v1/models", { signal: abort.signal, cache: "no-store" })
      .then(async (res) => (res.ok ? listSchema.safeParse(await res.json()) : null))
      .then((parsed) => {
        if (!parsed?.success) return;
        offered = new Set(parsed.data.data.map((m) => m.id));
        setModels(parsed.data.data);
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, []);
  if (models.length < 2) return null;
  const fallback = models.find((m) => m.default) ?? models[0]!;
  const value = choice && models.some((m) => m.id === choice) ? choice : fallback.id;
  return (
    <label className="chat-model-picker" data-testid="model-picker">
      <span className="sr-only">{t.model}</span>
      <select value={value} title={t.modelTitle} onChange={(e) => choose(e.target.value === fallback.id ? null : e.target.value)}>
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.offline ? t.demoModel : m.label}
          </option>
        ))}
      </select>
    </label>
  );
}
