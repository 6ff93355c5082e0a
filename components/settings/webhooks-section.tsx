"use client";

import { useId, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary, useRequestErrorText } from "@/components/i18n/use-dictionary";

// The chat settings' webhooks section (docs/webhooks.md): the user's own endpoints, each with its
// state and recent deliveries, a form to add one (its signing secret shown once), turn off or on,
// and delete. The console lists everyone's (/admin/webhooks).

type Endpoint = { id: string; url: string; description: string | null; enabled: boolean; disabledReason: string | null; events: string[] };

function Deliveries({ endpointId }: { endpointId: string }) {
  const t = useDictionary().settings.webhooks;
  const trpc = useTRPC();
  const log = useQuery(trpc.webhooks.myDeliveries.queryOptions({ endpointId, limit: 10 }));
  if (!log.data) return null;
  if (log.data.length === 0) return <p className="muted">{t.noDeliveries}</p>;
  return (
    <ul className="plain-list" data-testid="webhook-deliveries">
      {log.data.map((d) => (
        <li key={d.id} className="muted" data-testid="webhook-delivery">
          {t.delivery(d.eventType, t.status[d.status] ?? d.status, d.attempts)}
        </li>
      ))}
    </ul>
  );
}

function EndpointItem({ endpoint, onChange }: { endpoint: Endpoint; onChange: () => void }) {
  const t = useDictionary().settings.webhooks;
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const update = useMutation(trpc.webhooks.updateMine.mutationOptions({ onSettled: onChange }));
  const remove = useMutation(trpc.webhooks.removeMine.mutationOptions({ onSettled: onChange }));
  const busy = update.isPending || remove.isPending;
  return (
    <li className="field" data-testid="webhook">
      <strong className="mono">{endpoint.url}</strong>
      {endpoint.description && <span className="muted">{endpoint.description}</span>}
      <div className="muted" role="status">
        {endpoint.enabled ? t.enabled : t.disabled(endpoint.disabledReason)} · {endpoint.events.join(", ")}
      </div>
      <div className="row">
        <button className="btn" type="button" disabled={busy} onClick={() => update.mutate({ id: endpoint.id, enabled: !endpoint.enabled })}>
          {endpoint.enabled ? t.turnOff : t.turnOn}
        </button>
        <button className="btn" type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t.hideLog : t.showLog}
        </button>
        <button className="btn" type="button" disabled={busy} aria-label={t.removeLabel(endpoint.url)} onClick={() => remove.mutate({ id: endpoint.id })}>
          {t.remove}
        </button>
      </div>
      {open && <Deliveries endpointId={endpoint.id} />}
    </li>
  );
}

export function WebhooksSection() {
  const t = useDictionary().settings.webhooks;
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const title = useId();
  const list = useQuery(trpc.webhooks.mine.queryOptions());
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.mine.queryKey() });
  const create = useMutation(trpc.webhooks.createMine.mutationOptions({ onSettled: refresh }));
  const failure = list.error ?? create.error;

  return (
    <section aria-labelledby={title} data-testid="webhooks-section">
      <h2 id={title}>{t.title}</h2>
      <p className="muted">{t.help}</p>
      {list.data?.length === 0 && <p className="muted">{t.none}</p>}
      {list.data && list.data.length > 0 && (
        <ul className="plain-list">
          {list.data.map((e) => (
            <EndpointItem key={e.id} endpoint={e} onChange={refresh} />
          ))}
        </ul>
      )}
      <form
        data-testid="webhook-form"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const description = String(data.get("description") ?? "").trim();
          create.mutate({ url: String(data.get("url") ?? "").trim(), ...(description ? { description } : {}) }, { onSuccess: () => (e.target as HTMLFormElement).reset() });
        }}
      >
        <div className="field">
          <label htmlFor={`${title}-url`}>{t.url}</label>
          <input className="input" id={`${title}-url`} name="url" type="url" required placeholder="https://" />
        </div>
        <div className="field">
          <label htmlFor={`${title}-description`}>{t.description}</label>
          <input className="input" id={`${title}-description`} name="description" maxLength={200} />
        </div>
        <button className="btn" type="submit" disabled={create.isPending}>
          {t.add}
        </button>
      </form>
      {create.data && (
        <div className="field" data-testid="webhook-secret">
          <span>{t.secret}</span>
          <code className="mono">{create.data.secret}</code>
        </div>
      )}
      {failure && (
        <p className="chat-run-error" role="alert">
          {errorText(failure) || t.failed}
        </p>
      )}
    </section>
  );
}
