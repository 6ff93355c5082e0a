"use client";

import { useEffect, useState } from "react";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { z } from "zod";

const modelSchema = z.object({ id: z.string(), provider: z.string(), label: z.string(), offline: z.boolean() });
type ModelInfo = z.infer<typeof modelSchema>;

/** Which model answers, from GET /api/v1/agent/model; nothing at all when the server does not say. */
export function ModelBadge() {
  const t = useDictionary();
  const [model, setModel] = useState<ModelInfo | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    fetch("/api/v1/agent/model", { signal: abort.signal, cache: "no-store" })
      .then(async (res) => (res.ok ? modelSchema.safeParse(await res.json()) : null))
      .then((parsed) => {
        if (parsed?.success) setModel(parsed.data);
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, []);
  if (!model) return null;
  // The built-in demo model is named in the page's language; a configured model by its own label.
  const demo = model.provider === "demo";
  const offlineNote = model.offline && !demo && !/offline/i.test(model.label) ? ` (${t.chat.offline})` : "";
  return (
    <span
      className={`chat-model-badge${model.offline ? " chat-model-badge-offline" : ""}`}
      data-testid="model-badge"
      data-offline={model.offline ? "true" : "false"}
      title={`${model.provider} · ${model.id}`}
    >
      <span className="chat-model-dot" aria-hidden="true" />
      <span className="chat-model-label">
        <span className="sr-only">{t.chat.model}: </span>
        {demo ? t.chat.demoModel : model.label}
        {offlineNote}
      </span>
    </span>
  );
}
