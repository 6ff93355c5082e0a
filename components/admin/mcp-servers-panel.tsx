"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates, type AdminOutputs } from "./format";
import styles from "./admin.module.css";

// The registered MCP servers (docs/mcp.md): their tools with kind and hints, their health (the last
// call's time, the last failure), calls per tool, and their grants. Registering and granting stay
// in the admin CLI and tRPC, where the auth is typed once.

type Listing = AdminOutputs["mcpServers"]["list"];
type Server = Listing["servers"][number];

const hintsOf = (annotations: Record<string, unknown> | undefined) =>
  Object.entries(annotations ?? {})
    .filter(([key, value]) => key.endsWith("Hint") && typeof value === "boolean")
    .map(([key, value]) => `${key.slice(0, -"Hint".length)}: ${String(value)}`)
    .join(", ");

function Health({ server }: { server: Server }) {
  const t = useDictionary().console.mcp;
  const dates = useConsoleDates();
  const h = server.health;
  if (!h) return <span className="pill" data-testid="mcp-health">{t.neverCalled}</span>;
  return (
    <span data-testid="mcp-health">
      <span className="pill pill-ok">{t.healthy(h.lastMs, dates.dateTime(h.lastCallAt))}</span>{" "}
      {h.lastError && <span className="pill pill-bad">{t.lastError(h.lastError, dates.dateTime(h.lastErrorAt))}</span>}
    </span>
  );
}

function ServerCard({ server, grants, onChange }: { server: Server; grants: Listing["grants"]; onChange: () => void }) {
  const t = useDictionary().console.mcp;
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const refresh = useMutation(trpc.mcpServers.refresh.mutationOptions({ onSettled: onChange }));
  return (
    <li className="card" data-testid="mcp-server" style={{ marginTop: 12 }}>
      <div className="row">
        <strong>{server.name}</strong> <span className="mono muted">{server.url}</span> <span className="pill">{server.hasAuth ? t.auth : t.noAuth}</span> <Health server={server} />
        <button className="btn" type="button" onClick={() => refresh.mutate({ name: server.name })} disabled={refresh.isPending}>
          {refresh.isPending ? t.refreshing : t.refresh}
        </button>
      </div>
      {refresh.error && (
        <p role="alert" className="error-text">
          {errorText(refresh.error)}
        </p>
      )}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="mcp-tools">
          <thead>
            <tr>
              <th>{t.tool}</th>
              <th>{t.kind}</th>
              <th>{t.hints}</th>
              <th>{t.calls}</th>
              <th>{t.failures}</th>
              <th>{t.avgMs}</th>
            </tr>
          </thead>
          <tbody>
            {server.tools.map((tool) => (
              <tr key={tool.name} data-testid="mcp-tool">
                <td className="mono" title={tool.description ?? undefined}>
                  {tool.name}
                </td>
                <td>{tool.kind}</td>
                <td className="muted">{hintsOf(tool.annotations)}</td>
                <td>{tool.stats?.calls ?? 0}</td>
                <td>{tool.stats?.failures ?? 0}</td>
                <td>{tool.stats ? tool.stats.avgMs : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>{t.grants}</h3>
      {grants.length === 0 ? (
        <p className="muted">{t.noGrants}</p>
      ) : (
        <ul className={styles.plainList} data-testid="mcp-grants">
          {grants.map((g) => (
            <li key={g.id}>
              {g.userEmail ?? (g.bindingId ? t.binding(g.bindingId) : "")} <span className="muted">{g.tools.length ? g.tools.join(", ") : t.allTools}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function McpServersPanel() {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const listing = useQuery(trpc.mcpServers.list.queryOptions());
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: trpc.mcpServers.list.queryKey() });
  const t = useDictionary().console.mcp;
  return (
    <section className="card" data-testid="mcp-servers-panel">
      <p className="muted">{t.help}</p>
      {listing.error && (
        <p role="alert" className="error-text">
          {errorText(listing.error)}
        </p>
      )}
      {listing.data && listing.data.servers.length === 0 && <p className="muted">{t.none}</p>}
      {listing.data && (
        <ul className={styles.plainList}>
          {listing.data.servers.map((s) => (
            <ServerCard key={s.id} server={s} grants={listing.data.grants.filter((g) => g.serverId === s.id)} onChange={invalidate} />
          ))}
        </ul>
      )}
    </section>
  );
}
