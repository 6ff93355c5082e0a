"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useConsoleDates, formatDuration, statusPillClass, type AdminOutputs } from "./format";
import { RunConversation } from "./run-conversation";
import { RunTimeline } from "./run-timeline";
import { RunApprovals } from "./run-approvals";
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
          {run.status}
        </span>
      </div>
      <dl className={styles.facts}>
        <Fact label="User">
          <Link href={`/admin/runs?user=${encodeURIComponent(run.userEmail)}`}>{run.userEmail}</Link>
        </Fact>
        <Fact label="Thread" testId="run-thread">
          <Link href={`/admin/threads/${run.threadId}`}>{run.threadTitle}</Link>
          <div className="muted mono">{run.threadId}</div>
        </Fact>
        <Fact label="Runner">
          <span className="mono">{run.runner}</span>
        </Fact>
        <Fact label="Model">{run.model ?? "—"}</Fact>
        <Fact label="Protocol">{run.protocol}</Fact>
        <Fact label="Run id">
          <span className="mono">{run.runId}</span>
        </Fact>
        <Fact label="Task id">
          <span className="mono">{run.id}</span>
        </Fact>
        <Fact label="Created">{dates.dateTime(run.createdAt)}</Fact>
        <Fact label="Started">{dates.dateTime(run.startedAt)}</Fact>
        <Fact label="Finished">{dates.dateTime(run.finishedAt)}</Fact>
        <Fact label="Duration" testId="run-duration">
          {formatDuration(run.durationMs)}
        </Fact>
        <Fact label="Deadline">{dates.dateTime(run.deadlineAt)}</Fact>
        {run.cancelRequestedAt ? <Fact label="Cancel requested">{dates.dateTime(run.cancelRequestedAt)}</Fact> : null}
        <Fact label="Token usage" testId="run-usage">
          {run.usage ? `${run.usage.inputTokens} in · ${run.usage.outputTokens} out · ${run.usage.totalTokens} total` : "—"}
        </Fact>
        <Fact label="Error" testId="run-error">
          {run.errorCode ? (
            <span className="error-text">
              <span className="mono">{run.errorCode}</span>
              {run.errorMessage ? `: ${run.errorMessage}` : null}
            </span>
          ) : (
            "none"
          )}
        </Fact>
      </dl>
    </section>
  );
}

function RunLatency({ detail }: { detail: RunDetail }) {
  const { latency } = detail;
  return (
    <section className="card" aria-labelledby="latency-title" data-testid="run-latency">
      <h2 id="latency-title" className={styles.sectionTitle}>
        Latency
      </h2>
      <dl className={styles.facts}>
        <Fact label="Queued (accepted → started)">{formatDuration(latency.queueMs)}</Fact>
        <Fact label="Time to first event" testId="latency-first-event">
          {formatDuration(latency.firstEventMs)}
        </Fact>
        <Fact label="Time to first tool call">{formatDuration(latency.firstToolCallMs)}</Fact>
        <Fact label="Time to first text" testId="latency-first-text">
          {formatDuration(latency.firstTextMs)}
        </Fact>
        <Fact label="Time to last event">{formatDuration(latency.lastEventMs)}</Fact>
        <Fact label="Run duration">{formatDuration(latency.totalMs)}</Fact>
      </dl>
      <p className="muted" style={{ fontSize: 13 }}>
        Times are measured from when the run was accepted, from the stored event timestamps.
      </p>
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="latency-stages">
          <caption className={styles.caption}>Messages by stage (latency from message metadata)</caption>
          <thead>
            <tr>
              <th scope="col" className={styles.num}>
                Seq
              </th>
              <th scope="col">Role</th>
              <th scope="col">Stage</th>
              <th scope="col" className={styles.num}>
                latency_ms
              </th>
              <th scope="col">Message id</th>
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
  const trpc = useTRPC();
  const detail = useQuery(trpc.adminRuns.get.queryOptions({ id }));
  if (detail.isPending) return <p className="muted">Loading run…</p>;
  if (detail.error) {
    return (
      <p role="alert" className="error-text" data-testid="run-error-state">
        {detail.error.message}
      </p>
    );
  }
  const d = detail.data;
  return (
    <>
      <p style={{ margin: 0 }}>
        <Link href="/admin/runs">← All runs</Link>
      </p>
      <RunHeader detail={d} />
      <RunConversation entries={d.conversation} />
      <RunLatency detail={d} />
      <RunToolCalls toolCalls={d.toolCalls} />
      <RunApprovals runId={d.run.id} />
      <RunnerResults runId={d.run.id} />
      <RunnerApiCalls runId={d.run.id} />
      <RunTimeline runId={d.run.id} eventCount={d.eventCount} startedAt={d.run.createdAt} />
    </>
  );
}
