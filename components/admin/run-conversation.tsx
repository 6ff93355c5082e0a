"use client";
import { AssistantMessage, UserMessage } from "../chat/message-parts";
import { UiSchemaView } from "../ui-schema/ui-schema-view";
import type { AdminOutputs } from "./format";
import { useDictionary } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

type Entry = AdminOutputs["adminRuns"]["get"]["conversation"][number];

/** The run as its user saw it: the prompt, the answer and its cards, rendered as in the chat. */
export function RunConversation({ entries }: { entries: Entry[] }) {
  const t = useDictionary().console.run;
  return (
    <section className="card" aria-labelledby="conversation-title" data-testid="run-conversation">
      <h2 id="conversation-title" className={styles.sectionTitle}>
        {t.conversation}
      </h2>
      {entries.length === 0 ? <p className="muted">{t.noMessages}</p> : null}
      <div className={styles.conversation}>
        {entries.map((e) =>
          e.role === "user" ? (
            <UserMessage key={e.seq} text={e.text ?? ""} images={[]} />
          ) : e.role === "assistant" ? (
            <AssistantMessage key={e.seq} text={e.text ?? ""} />
          ) : (
            <UiSchemaView key={e.seq} schema={e.uiSchema} />
          ),
        )}
      </div>
    </section>
  );
}
