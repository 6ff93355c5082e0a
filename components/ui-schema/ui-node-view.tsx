import type { UiNode, UiNodeOf } from "@/server/ui-schema/schema";
import { CalendarEventView, ContactView } from "./ui-domain-nodes";
import { useContext } from "react";
import { formatInstant } from "./format-datetime";
import { ViewerZoneContext } from "./viewer-zone";
import { UiFallback } from "./ui-fallback";
import styles from "./ui-schema.module.css";

// Layout and primitive nodes. Everything is rendered as React text, never as HTML, so a
// hostile string in a tool result stays a string.

type NodeProps<T extends UiNode["type"]> = { node: UiNodeOf<T>; locale: string };

export function UiNodeView({ node, locale }: { node: UiNode; locale: string }) {
  switch (node.type) {
    case "stack":
      return <StackView node={node} locale={locale} />;
    case "text":
      return <TextView node={node} />;
    case "badge":
      return (
        <span className={styles.badge} data-status={node.status} data-testid="ui-node-badge">
          {node.label}
        </span>
      );
    case "divider":
      return <hr className={styles.divider} data-testid="ui-node-divider" />;
    case "key_value":
      return <KeyValueView node={node} />;
    case "list":
      return <ListView node={node} locale={locale} />;
    case "datetime":
      return <DateTimeView node={node} locale={locale} />;
    case "calendar_event":
      return <CalendarEventView node={node} locale={locale} />;
    case "contact":
      return <ContactView node={node} locale={locale} />;
    default: {
      // Unreachable for validated documents; kept so a future node type degrades visibly.
      const unknownNode: never = node;
      return <UiFallback value={unknownNode} />;
    }
  }
}

function StackView({ node, locale }: NodeProps<"stack">) {
  const className = [
    styles.stack,
    node.direction === "horizontal" ? styles.horizontal : undefined,
    node.appearance === "card" ? styles.card : node.appearance === "section" ? styles.section : undefined,
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={className} data-testid="ui-node-stack" data-appearance={node.appearance}>
      {node.children.map((child, i) => (
        <UiNodeView key={i} node={child} locale={locale} />
      ))}
    </div>
  );
}

function TextView({ node }: { node: UiNodeOf<"text"> }) {
  const common = { "data-testid": "ui-node-text", "data-role": node.role } as const;
  switch (node.role) {
    case "title":
      return <h3 className={styles.title} {...common}>{node.content}</h3>;
    case "subtitle":
      return <h4 className={styles.subtitle} {...common}>{node.content}</h4>;
    case "caption":
      return <p className={styles.caption} {...common}>{node.content}</p>;
    case "body":
      return <p className={styles.body} {...common}>{node.content}</p>;
  }
}

function KeyValueView({ node }: { node: UiNodeOf<"key_value"> }) {
  return (
    <dl className={styles.keyValue} data-testid="ui-node-key_value">
      {node.items.map((item, i) => (
        <div className={styles.keyValueRow} key={i}>
          <dt>{item.label}</dt>
          <dd>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

function ListView({ node, locale }: NodeProps<"list">) {
  const items = node.items.map((item, i) => (
    <li key={i}>
      <UiNodeView node={item} locale={locale} />
    </li>
  ));
  const common = { "aria-label": node.label, "data-testid": "ui-node-list" } as const;
  return node.ordered ? (
    <ol className={`${styles.list} ${styles.ordered}`} {...common}>{items}</ol>
  ) : (
    <ul className={styles.list} {...common}>{items}</ul>
  );
}

function DateTimeView({ node, locale }: NodeProps<"datetime">) {
  const viewerZone = useContext(ViewerZoneContext);
  const text = formatInstant(node.value, { locale, timeZone: viewerZone ?? node.timeZone, parts: node.format, withZone: !viewerZone });
  return (
    <span className={styles.datetime} data-testid="ui-node-datetime">
      {node.label ? <span className={styles.datetimeLabel}>{node.label}</span> : null}
      {/* Server and browser ICU data can word a date slightly differently. */}
      <time dateTime={node.value} suppressHydrationWarning>
        {text}
      </time>
    </span>
  );
}
