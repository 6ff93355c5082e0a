"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";

export function HealthPanel() {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const health = useQuery(trpc.health.get.queryOptions());
  const t = useDictionary().console.health;
  return (
    <section className="card" aria-labelledby="health-title">
      <h2 id="health-title" style={{ marginTop: 0 }}>
        {t.title}
      </h2>
      {health.isPending ? <p className="muted">{t.checking}</p> : null}
      {health.error ? <p className="error-text">{errorText(health.error)}</p> : null}
      {health.data ? (
        <p data-testid="health-status">
          {t.database}{" "}
          <span className={`pill ${health.data.database.reachable ? "pill-ok" : "pill-bad"}`}>
            {health.data.database.reachable ? t.reachable : t.unreachable}
          </span>{" "}
          {health.data.database.version ? <span className="muted">PostgreSQL {health.data.database.version}</span> : null}
        </p>
      ) : null}
    </section>
  );
}
