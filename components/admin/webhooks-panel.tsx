"use client";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates, type AdminOutputs } from "./format";
import styles from "./admin.module.css";

// Webhook endpoints (docs/webhooks.md): each one's state (a disabled endpoint shows its notice),
// its delivery log with every delivery's attempts and last answer, and a redeliver button.

type Endpoint = AdminOutputs["webhooks"]["list"][number];

function DeliveryLog({ endpoint }: { endpoint: Endpoint }) {
  const t = useDictionary().console.webhooks;
  const dates = useConsoleDates();
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const log = useQuery(trpc.webhooks.deliveries.queryOptions({ endpointId: endpoint.id }));
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({ onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey({ endpointId: endpoint.id }) }) }),
  );
  const failure = log.error ?? redeliver.error;
  return (
    <div className="table-wrap" tabIndex={0}>
      {failure && (
        <p role="alert" className="error-text">
          {errorText(failure)}
        </p>
      )}
      {log.data?.length === 0 && <p className="muted">{t.noDeliveries}</p>}
      {log.data && log.data.length > 0 && (
        <table className="data" data-testid="webhook-deliveries">
          <thead>
            <tr>
              <th>{t.created}</th>
              <th>{t.event}</th>
              <th>{t.status}</th>
              <th>{t.attempts}</th>
              <th>{t.last}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {log.data.map((d) => (
              <tr key={d.id} data-testid="webhook-delivery">
                <td title={d.id}>{dates.dateTime(d.createdAt)}</td>
                <td className="mono">{d.eventType}</td>
                <td>
                  <span className={`pill ${d.status === "delivered" ? "pill-ok" : d.status === "failed" ? "pill-bad" : ""}`}>{d.status}</span>
                </td>
                <td>{d.attempts}</td>
                <td className="muted">{[d.lastStatus, d.lastError].filter((x) => x !== null).join(" · ")}</td>
                <td>
                  <button className="btn" type="button" disabled={redeliver.isPending || !endpoint.enabled} onClick={() => redeliver.mutate({ endpointId: endpoint.id, id: d.id })}>
                    {t.redeliver}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function EndpointCard({ endpoint, onChange }: { endpoint: Endpoint; onChange: () => void }) {
  const t = useDictionary().console.webhooks;
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const enable = useMutation(trpc.webhooks.update.mutationOptions({ onSettled: onChange }));
  return (
    <li className="card" data-testid="webhook-endpoint" style={{ marginTop: 12 }}>
      <div className="row">
        <strong className="mono">{endpoint.url}</strong>
        <span className={`pill ${endpoint.enabled ? "pill-ok" : "pill-bad"}`}>{endpoint.enabled ? t.enabled : t.disabled}</span>
        <span className="muted">{endpoint.bindingId ? t.binding(endpoint.bindingId) : t.owner(endpoint.userId)}</span>
        <span className="muted">{endpoint.events.join(", ")}</span>
        {endpoint.consecutiveFailures > 0 && <span className="pill pill-bad">{t.failures(endpoint.consecutiveFailures)}</span>}
        {!endpoint.enabled && (
          <button className="btn" type="button" onClick={() => enable.mutate({ id: endpoint.id, enabled: true })} disabled={enable.isPending}>
            {t.enable}
          </button>
        )}
        <button className="btn" type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? t.hideLog : t.showLog}
        </button>
      </div>
      {endpoint.disabledReason && (
        <p role="status" className="error-text" data-testid="webhook-notice">
          {endpoint.disabledReason}
        </p>
      )}
      {enable.error && (
        <p role="alert" className="error-text">
          {errorText(enable.error)}
        </p>
      )}
      {open && <DeliveryLog endpoint={endpoint} />}
    </li>
  );
}

export function WebhooksPanel() {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const listing = useQuery(trpc.webhooks.list.queryOptions());
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
  const t = useDictionary().console.webhooks;
  return (
    <section className="card" data-testid="webhooks-panel">
      <p className="muted">{t.help}</p>
      {listing.error && (
        <p role="alert" className="error-text">
          {errorText(listing.error)}
        </p>
      )}
      {listing.data?.length === 0 && <p className="muted">{t.none}</p>}
      {listing.data && (
        <ul className={styles.plainList}>
          {listing.data.map((e) => (
            <EndpointCard key={e.id} endpoint={e} onChange={invalidate} />
          ))}
        </ul>
      )}
    </section>
  );
}
