"use client";

import { useEffect, useState } from "react";
import { z } from "zod";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { ChoicePicker, storedChoice } from "./choice-picker";

// The chat's choice of model, when the server offers more than one (GET /api/v1/models). The
// choice is kept in this browser (localStorage) and sent with each run as forwardedProps.model;
// a choice the server no longer offers is dropped, so the run takes the default.

const listSchema = z.object({ data: z.array(z.object({ id: z.string(), label: z.string(), offline: z.boolean().default(false), default: z.boolean() })) });
type ModelEntry = z.infer<typeof listSchema>["data"][number];

const choice = storedChoice("dispatch.chat.model");

/** The model the user picked for the next run, if the server offers it; undefined for the default. */
export function selectedModel(): string | undefined {
  return choice.selected();
}

export function ModelPicker() {
  const t = useDictionary().chat;
  const [models, setModels] = useState<ModelEntry[]>([]);
  useEffect(() => {
    const abort = new AbortController();
    fetch("/api/v1/models", { signal: abort.signal, cache: "no-store" })
      .then(async (res) => (res.ok ? listSchema.safeParse(await res.json()) : null))
      .then((parsed) => {
        if (!parsed?.success) return;
        choice.offer(parsed.data.data.map((m) => m.id));
        setModels(parsed.data.data);
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, []);
  const options = models.map((m) => ({ id: m.id, label: m.offline ? t.demoModel : m.label, default: m.default }));
  return <ChoicePicker choice={choice} options={options} label={t.model} title={t.modelTitle} testId="model-picker" />;
}
