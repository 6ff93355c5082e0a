"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";

export function HealthPanel() {
  const trpc = useTRPC();
  const health = useQuery(trpc.health.get.queryOptions());
  return (
    <section className="card" aria-labelledby="health-title">
      <h2 id="health-title" style={{ marginTop: 0 }}>
        Health
      </h2>
      {health.isPending ? <p className="muted">Checking…</p> : null}
      {health.error ? <p className="error-text">{health.error.message}</p> : null}
      {health.data ? (
        <p data-testid="health-status">
          Database{" "}
          <span className={`pill ${health.data.database.reachable ? "pill-ok" : "pill-bad"}`}>
            {health.data.database.reachable ? "reachable" : "unreachable"}
          </span>{" "}
          {health.data.database.version ? <span className="muted">PostgreSQL {health.data.database.version}</span> : null}
        </p>
      ) : null}
    </section>
  );
}
