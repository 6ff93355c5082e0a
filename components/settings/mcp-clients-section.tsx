"use client";

import { useId } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary } from "@/components/i18n/use-dictionary";

// The chat settings' connected apps: the MCP clients the user allowed with OAuth (docs/mcp.md#oauth),
// each with a Disconnect button that revokes its tokens at once.

export function McpClientsSection() {
  const t = useDictionary().oauth;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const title = useId();
  const list = useQuery(trpc.mcpClients.list.queryOptions());
  const disconnect = useMutation(trpc.mcpClients.disconnect.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.mcpClients.list.queryKey() }) }));
  const clients = list.data ?? [];
  return (
    <section aria-labelledby={title} data-testid="mcp-clients-section">
      <h2 id={title}>{t.connectedTitle}</h2>
      {list.isSuccess && clients.length === 0 ? <p className="muted">{t.connectedNone}</p> : null}
      <ul style={{ listStyle: "none", padding: 0 }}>
        {clients.map((c) => (
          <li key={c.grantId} className="field" style={{ display: "flex", gap: 8, alignItems: "center" }}>
            <span>{c.clientName}</span>
            <span className="muted">{t.connectedSince(new Date(c.createdAt).toISOString().slice(0, 10))}</span>
            <button className="btn" type="button" aria-label={t.disconnectClient(c.clientName)} disabled={disconnect.isPending} onClick={() => disconnect.mutate({ grantId: c.grantId })}>
              {t.disconnect}
            </button>
          </li>
        ))}
      </ul>
      {list.isError || disconnect.isError ? (
        <p className="chat-run-error" role="alert">
          {t.connectedFailed}
        </p>
      ) : null}
    </section>
  );
}
