"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates, formatDuration, statusPillClass, type AdminOutputs } from "./format";
import { RunConversation } from "./run-conversation";
import { RunTimeline } from "./run-timeline";
import { RunApprovals } from "./run-approvals";
import { RunAttempts } from "./run-attempts";
import { RunToolCalls } from "./run-tool-calls";
import { RunnerApiCalls } from "./runner-api-calls";
import { RunnerResults } from "./runner-results";
import styles from "./admin.module.css";

type RunDetail = AdminOutputs["adminRuns"]["get"];

function Fact({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A run is known by what was asked: its prompt's first line. */
function promptTitle(detail: RunDetail): string | null {
  const prompt = detail.conversation.find((e) => e.role === "user")?.text?.replace(/\s+/g, " ").trim();
  if (!prompt) return null;
  return prompt.length > 90 ? `${prompt.slice(0, 87)}…` : prompt;
}

function RunHeader({ detail }: { detail: RunDetail }) {
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.run;
  const { run } = detail;
  return (
    <section className="card" aria-labelledby="run-title" data-testid="run-header">
      <div className="row" style={{ marginBottom: 12 }}>
        <h1 id="run-title" className={styles.title} data-testid="run-title">
          {promptTitle(detail) ?? (
            <>
              Run <span className="mono">{run.runId}</span>
            </>
          )}
        </h1>
        <span className={statusPillClass(run.status)} data-testid="run-status">
          {c.status[run.status] ?? run.status}
        </span>
      </div>
      <dl className={styles.facts}>
        <Fact label={t.user}>
          <Link href={`/admin/runs?user=${encodeURIComponent(run.userEmail)}`}>{run.userEmail}</Link>
        </Fact>
        <Fact label={t.thread} testId="run-thread">
          <Link href={`/admin/threads/${run.threadId}`}>{run.threadTitle}</Link>
          <div className="muted mono">{run.threadId}</div>
        </Fact>
        <Fact label={t.runner}>
          <span className="mono">{run.runner}</span>
        </Fact>
        <Fact label={t.model}>{run.model ?? "—"}</Fact>
        <Fact label={t.protocol}>{run.protocol}</Fact>
        <Fact label={t.runId}>
          <span className="mono">{run.runId}</span>
        </Fact>
        <Fact label={t.taskId}>
          <span className="mono">{run.id}</span>
        </Fact>
        {run.traceId ? (
          <Fact label={t.traceId} testId="run-trace">
            <span className="mono">{run.traceId}</span>
          </Fact>
        ) : null}
        <Fact label={t.created}>{dates.dateTime(run.createdAt)}</Fact>
        <Fact label={t.started}>{dates.dateTime(run.startedAt)}</Fact>
        <Fact label={t.finished}>{dates.dateTime(run.finishedAt)}</Fact>
        <Fact label={t.duration} testId="run-duration">
          {formatDuration(run.durationMs)}
        </Fact>
        <Fact label={t.deadline}>{dates.dateTime(run.deadlineAt)}</Fact>
        {run.cancelRequestedAt ? <Fact label={t.cancelRequested}>{dates.dateTime(run.cancelRequestedAt)}</Fact> : null}
        <Fact label={t.tokenUsage} testId="run-usage">
          {run.usage ? t.tokens(run.usage.inputTokens, run.usage.outputTokens, run.usage.totalTokens) : "—"}
        </Fact>
        <Fact label={t.error} testId="run-error">
          {run.errorCode ? (
            <span className="error-text">
              <span className="mono">{run.errorCode}</span>
              {run.errorMessage ? `: ${run.errorMessage}` : null}
            </span>
          ) : (
            t.noError
          )}
        </Fact>
      </dl>
    </section>
  );
}

function RunLatency({ detail }: { detail: RunDetail }) {
  const { latency } = detail;
  const t = useDictionary().console.run;
  return (
    <section className="card" aria-labelledby="latency-title" data-testid="run-latency">
      <h2 id="latency-title" className={styles.sectionTitle}>
        {t.latency}
      </h2>
      <dl className={styles.facts}>
        <Fact label={t.queued}>{formatDuration(latency.queueMs)}</Fact>
        <Fact label={t.firstEvent} testId="latency-first-event">
          {formatDuration(latency.firstEventMs)}
        </Fact>
        <Fact label={t.firstToolCall}>{formatDuration(latency.firstToolCallMs)}</Fact>
        <Fact label={t.firstText} testId="latency-first-text">
          {formatDuration(latency.firstTextMs)}
        </Fact>
        <Fact label={t.lastEvent}>{formatDuration(latency.lastEventMs)}</Fact>
        <Fact label={t.runDuration}>{formatDuration(latency.totalMs)}</Fact>
      </dl>
      <p className="muted" style={{ fontSize: 13 }}>
        {t.latencyNote}
      </p>
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="latency-stages">
          <caption className={styles.caption}>{t.stagesCaption}</caption>
          <thead>
            <tr>
              <th scope="col" className={styles.num}>
                {t.seq}
              </th>
              <th scope="col">{t.role}</th>
              <th scope="col">{t.stage}</th>
              <th scope="col" className={styles.num}>
                latency_ms
              </th>
              <th scope="col">{t.messageId}</th>
            </tr>
          </thead>
          <tbody>
            {latency.stages.map((s) => (
              <tr key={s.seq}>
                <td className={styles.num}>{s.seq}</td>
                <td>{s.role}</td>
                <td>{s.stage ?? "—"}</td>
                <td className={styles.num}>{s.latencyMs === null ? "—" : formatDuration(s.latencyMs)}</td>
                <td className={`mono ${styles.truncate}`}>{s.messageId}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function RunDetailView({ id }: { id: string }) {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const detail = useQuery(trpc.adminRuns.get.queryOptions({ id }));
  const t = useDictionary().console.run;
  if (detail.isPending) return <p className="muted">{t.loading}</p>;
  if (detail.error) {
    return (
      <p role="alert" className="error-text" data-testid="run-error-state">
        {errorText(detail.error)}
      </p>
    );
  }
  const d = detail.data;
  return (
    <>
      <p style={{ margin: 0 }}>
        <Link href="/admin/runs">{t.allRuns}</Link>
      </p>
      <RunHeader detail={d} />
      <RunConversation entries={d.conversation} />
      <RunLatency detail={d} />
      <RunAttempts attempts={d.attempts} />
      <RunToolCalls toolCalls={d.toolCalls} />
      <RunApprovals runId={d.run.id} />
      <RunnerResults runId={d.run.id} />
      <RunnerApiCalls runId={d.run.id} />
      <RunTimeline runId={d.run.id} eventCount={d.eventCount} startedAt={d.run.createdAt} />
    </>
  );
}
