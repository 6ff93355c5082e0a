"use client";
import { UiSchemaView } from "../ui-schema/ui-schema-view";
import { formatDuration, statusPillClass, type AdminOutputs } from "./format";
import { JsonBlock } from "./json-block";
import { useDictionary } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

type ToolCall = AdminOutputs["adminRuns"]["get"]["toolCalls"][number];

const ARGS_SOURCE: Record<NonNullable<ToolCall["argsSource"]>, string> = {
  events: "assembled from TOOL_CALL_ARGS",
  tool_message: "from tool_agent_output.tool_call_args",
};

const UI_SOURCE: Record<NonNullable<ToolCall["uiSource"]>, string> = {
  ui_hints: "compiled from tool_agent_output.ui_hints",
  event: "from TOOL_CALL_RESULT metadata.ui_schema",
};

function ToolCallCard({ call }: { call: ToolCall }) {
  const output = call.output as { result?: unknown; error?: unknown } | null;
  const t = useDictionary().console.run;
  return (
    <article className={styles.toolCall} data-testid="tool-call" data-tool-call-id={call.toolCallId}>
      <header className={styles.toolHead}>
        <h3>
          {call.toolName ?? "tool"} <span className="mono muted">{call.toolCallId}</span>
        </h3>
        <span className={statusPillClass(call.status ?? "")} data-testid="tool-status">
          {call.status ?? t.noOutput}
        </span>
        <span className="muted" style={{ fontSize: 13 }}>
          {call.durationMs !== null ? `start → result ${formatDuration(call.durationMs)}` : null}
          {call.latencyMs !== null ? ` · ${call.stage ?? "stage"} latency_ms ${formatDuration(call.latencyMs)}` : null}
          {call.firstSeq !== null ? ` · from event #${call.firstSeq}` : null}
        </span>
      </header>
      <div className={styles.toolGrid}>
        <div>
          <h4 className={styles.subTitle}>{t.arguments} {call.argsSource ? `(${ARGS_SOURCE[call.argsSource]})` : t.noneRecorded}</h4>
          <JsonBlock value={call.args} testId="tool-args" />
          {output ? (
            <>
              <h4 className={styles.subTitle} style={{ marginTop: 10 }}>
                {t.result}
              </h4>
              <JsonBlock value={output.result ?? null} testId="tool-result" />
              {output.error ? (
                <>
                  <h4 className={styles.subTitle} style={{ marginTop: 10 }}>
                    {t.error}
                  </h4>
                  <JsonBlock value={output.error} testId="tool-error" />
                </>
              ) : null}
              <JsonBlock value={call.output} summary="Raw ToolAgentOutput" testId="tool-output-raw" />
            </>
          ) : (
            <>
              <h4 className={styles.subTitle} style={{ marginTop: 10 }}>
                {t.content}
              </h4>
              <JsonBlock value={call.content} testId="tool-content" />
            </>
          )}
        </div>
        <div>
          <h4 className={styles.subTitle}>UI {call.uiSource ? `(${UI_SOURCE[call.uiSource]})` : ""}</h4>
          {call.uiSchema ? (
            <>
              <UiSchemaView schema={call.uiSchema} />
              <JsonBlock value={call.uiSchema} summary="Raw uiSchema" testId="tool-ui-raw" />
            </>
          ) : (
            <p className="muted">{t.noCard}</p>
          )}
        </div>
      </div>
    </article>
  );
}

export function RunToolCalls({ toolCalls }: { toolCalls: ToolCall[] }) {
  const t = useDictionary().console.run;
  return (
    <section className="card" aria-labelledby="tools-title" data-testid="run-tool-calls">
      <h2 id="tools-title" className={styles.sectionTitle}>
        {t.toolCalls(toolCalls.length)}
      </h2>
      {toolCalls.length === 0 ? <p className="muted">{t.noToolCalls}</p> : null}
      <div className="stack">
        {toolCalls.map((call) => (
          <ToolCallCard key={call.toolCallId} call={call} />
        ))}
      </div>
    </section>
  );
}
