"use client";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates, type AdminOutputs } from "./format";
import { JsonBlock } from "./json-block";
import styles from "./admin.module.css";

type Overview = AdminOutputs["runners"]["overview"];

function healthClass(status: string): string {
  return status === "ok" ? "pill pill-ok" : status === "unknown" ? "pill" : "pill pill-bad";
}

function RegisterForm({ onDone }: { onDone: () => void }) {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const t = useDictionary().console.runners;
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const register = useMutation(
    trpc.runners.register.mutationOptions({
      onSuccess: () => {
        setUrl("");
        setSecret("");
        onDone();
      },
    }),
  );
  return (
    <form
      className="row"
      data-testid="runner-register-form"
      onSubmit={(e) => {
        e.preventDefault();
        register.mutate({ url, secret });
      }}
    >
      <label className="sr-only" htmlFor="runner-url">
        {t.baseUrl}
      </label>
      <input id="runner-url" className="input" style={{ maxWidth: 320 }} placeholder="http://127.0.0.1:4100" value={url} onChange={(e) => setUrl(e.target.value)} required />
      <label className="sr-only" htmlFor="runner-secret">
        {t.secret}
      </label>
      <input id="runner-secret" className="input" style={{ maxWidth: 240 }} type="password" placeholder={t.secretPlaceholder} value={secret} onChange={(e) => setSecret(e.target.value)} required autoComplete="off" />
      <button className="btn btn-primary" type="submit" disabled={register.isPending}>
        {register.isPending ? t.discovering : t.register}
      </button>
      {register.error && (
        <p role="alert" className="error-text" style={{ flexBasis: "100%" }}>
          {errorText(register.error)}
        </p>
      )}
      {register.data && register.data.warnings.length > 0 && (
        <ul role="status" className="muted" style={{ flexBasis: "100%" }}>
          {register.data.warnings.map((w, i) => (
            <li key={i}>{t.skipped(w.runner_id ?? null, w.reason)}</li>
          ))}
        </ul>
      )}
    </form>
  );
}

function RegisterAgentForm({ onDone }: { onDone: () => void }) {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const t = useDictionary().console.runners;
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [authorization, setAuthorization] = useState("");
  const register = useMutation(
    trpc.runners.registerAgent.mutationOptions({
      onSuccess: () => {
        setName("");
        setUrl("");
        setAuthorization("");
        onDone();
      },
    }),
  );
  return (
    <form
      className="row"
      data-testid="agent-register-form"
      onSubmit={(e) => {
        e.preventDefault();
        register.mutate({ name, url, headers: authorization ? { authorization } : {} });
      }}
    >
      <p className="muted" style={{ flexBasis: "100%" }}>
        {t.agentsHelp}
      </p>
      <label className="sr-only" htmlFor="agent-name">
        {t.agentName}
      </label>
      <input id="agent-name" className="input" style={{ maxWidth: 160 }} placeholder="weather" value={name} onChange={(e) => setName(e.target.value)} required />
      <label className="sr-only" htmlFor="agent-url">
        {t.agentUrl}
      </label>
      <input id="agent-url" className="input" style={{ maxWidth: 320 }} placeholder="http://127.0.0.1:4111/agent" value={url} onChange={(e) => setUrl(e.target.value)} required />
      <label className="sr-only" htmlFor="agent-authorization">
        {t.agentAuthorization}
      </label>
      <input id="agent-authorization" className="input" style={{ maxWidth: 240 }} type="password" placeholder={t.agentAuthorization} value={authorization} onChange={(e) => setAuthorization(e.target.value)} autoComplete="off" />
      <button className="btn btn-primary" type="submit" disabled={register.isPending}>
        {register.isPending ? t.registering : t.registerAgent}
      </button>
      {register.error && (
        <p role="alert" className="error-text" style={{ flexBasis: "100%" }}>
          {errorText(register.error)}
        </p>
      )}
      {register.data && (
        <p role="status" className="muted" style={{ flexBasis: "100%" }}>
          {t.registeredAgent(register.data.runnerId)}
        </p>
      )}
    </form>
  );
}

function EndpointRow({ endpoint, runners, onChange }: { endpoint: Overview["endpoints"][number]; runners: Overview["runners"]; onChange: () => void }) {
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.runners;
  const trpc = useTRPC();
  const refresh = useMutation(trpc.runners.refresh.mutationOptions({ onSettled: onChange }));
  const remove = useMutation(trpc.runners.removeEndpoint.mutationOptions({ onSuccess: onChange }));
  return (
    <li className="card" data-testid="runner-endpoint" style={{ marginTop: 12 }}>
      <div className="row">
        <strong className="mono">{endpoint.baseUrl}</strong>
        <span className={healthClass(endpoint.status)} data-testid="runner-endpoint-status">
          {endpoint.status}
        </span>
        {endpoint.kind === "ag-ui" && <span className="pill">{t.agUi}</span>}
        <span className="muted">{t.checked(endpoint.refreshedAt ? dates.dateTime(endpoint.refreshedAt) : c.never)}</span>
        {endpoint.kind === "runner" && (
          <button className="btn" type="button" onClick={() => refresh.mutate({ endpointId: endpoint.id })} disabled={refresh.isPending}>
            {refresh.isPending ? t.checking : t.refresh}
          </button>
        )}
        <button
          className="btn"
          type="button"
          onClick={() => {
            if (window.confirm(t.removeQuestion(endpoint.baseUrl))) remove.mutate({ endpointId: endpoint.id });
          }}
        >
          {t.remove}
        </button>
      </div>
      {endpoint.lastError && (
        <p className="error-text" role="status">
          {endpoint.lastError}
        </p>
      )}
      {endpoint.warnings.length > 0 && (
        <ul className="muted" data-testid="runner-warnings">
          {endpoint.warnings.map((w, i) => (
            <li key={i}>{t.skipped(w.runner_id ?? null, w.reason)}</li>
          ))}
        </ul>
      )}
      <RunnerList runners={runners} />
    </li>
  );
}

function RunnerList({ runners }: { runners: Overview["runners"] }) {
  const t = useDictionary().console.runners;
  if (runners.length === 0) return <p className="muted">{t.noRunners}</p>;
  return (
    <ul className={styles.plainList}>
      {runners.map((r) => (
        <li key={r.id} data-testid="runner-item">
          <span className="mono">{r.id}</span> {r.builtin && <span className="pill">{t.builtIn}</span>}{" "}
          {!r.available && <span className="pill pill-bad">{t.noLongerListed}</span>}{" "}
          <span className="muted">{Object.values(r.manifest.label)[0]}</span>
          <JsonBlock value={r.manifest} summary={t.manifest} />
        </li>
      ))}
    </ul>
  );
}

export function RunnersPanel() {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const overview = useQuery(trpc.runners.overview.queryOptions());
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: trpc.runners.overview.queryKey() });
  const data = overview.data;
  const t = useDictionary().console.runners;
  return (
    <section className="card" aria-labelledby="runners-title" data-testid="runners-panel">
      <h2 id="runners-title" className={styles.sectionTitle}>
        {t.endpoints}
      </h2>
      <p className="muted">{t.endpointsHelp}</p>
      <RegisterForm onDone={invalidate} />
      <RegisterAgentForm onDone={invalidate} />
      {overview.error && (
        <p role="alert" className="error-text">
          {errorText(overview.error)}
        </p>
      )}
      {data && (
        <>
          <h3>{t.builtInTitle}</h3>
          <RunnerList runners={data.runners.filter((r) => r.endpointId === null)} />
          <ul className={styles.plainList}>
            {data.endpoints.map((e) => (
              <EndpointRow key={e.id} endpoint={e} runners={data.runners.filter((r) => r.endpointId === e.id)} onChange={invalidate} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
