"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";

const shown = (n: number | null) => (n === null ? "—" : n.toLocaleString());

function Budget({ label, used, max, left, unit, testId }: { label: string; used: number; max: number | null; left: number | null; unit: string; testId: string }) {
  return (
    <div data-testid={testId}>
      <dt>{label}</dt>
      <dd>
        {max === null ? (
          <>
            {used.toLocaleString()} {unit} · no limit
          </>
        ) : (
          <>
            {used.toLocaleString()} of {max.toLocaleString()} {unit} · <strong>{shown(left)} left</strong>
            <meter min={0} max={max} value={Math.min(used, max)} style={{ display: "block", width: "100%" }} aria-label={`${label}: ${used} of ${max}`} />
          </>
        )}
      </dd>
    </div>
  );
}

/** The signed-in user's own usage (the last two weeks) and what is left of their budgets, for the chat's settings. */
export function UsageSection() {
  const trpc = useTRPC();
  const mine = useQuery(trpc.usage.mine.queryOptions());
  const data = mine.data;
  return (
    <section aria-labelledby="usage-section-title" data-testid="usage-section">
      <h2 id="usage-section-title">Usage</h2>
      {mine.error && (
        <p role="alert" className="error-text">
          {mine.error.message}
        </p>
      )}
      {data && (
        <>
          <dl>
            <Budget testId="usage-tokens-today" label="Tokens today (UTC)" used={data.today.tokensToday} max={data.budgets.tokensPerDay} left={data.remaining.tokensToday} unit="tokens" />
            <Budget testId="usage-runs-minute" label="Runs in the last minute" used={data.today.runsLastMinute} max={data.budgets.runsPerMinute} left={data.remaining.runsThisMinute} unit="runs" />
            <Budget testId="usage-runs-now" label="Runs in progress" used={data.today.runsInProgress} max={data.budgets.concurrentRuns} left={data.remaining.concurrentRuns} unit="runs" />
          </dl>
          <table className="table">
            <caption style={{ textAlign: "left" }}>Last 14 days</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Runs</th>
                <th scope="col">Tokens</th>
              </tr>
            </thead>
            <tbody>
              {data.days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.runs}</td>
                  <td>{shown(d.totalTokens)}</td>
                </tr>
              ))}
              {data.days.length === 0 && (
                <tr>
                  <td colSpan={3} className="muted">
                    No runs yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          {data.models.length > 0 && (
            <p className="muted">By model: {data.models.map((m) => `${m.model} ${shown(m.totalTokens)} tokens in ${m.runs} runs`).join(" · ")}</p>
          )}
        </>
      )}
    </section>
  );
}
