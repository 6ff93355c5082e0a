import { useContext, useId } from "react";
import { ViewerZoneContext } from "./viewer-zone";
import type { UiNodeOf } from "@/server/ui-schema/schema";
import { formatInstant, isSameDay, justBefore } from "./format-datetime";
import { labelsFor, type RendererLabels } from "./labels";
import styles from "./ui-schema.module.css";

// Calendar and contact nodes: the records project_cli returns most often.

type Person = { name?: string; email?: string };

const EMAIL = /^[^\s@<>()"]+@[^\s@<>()"]+\.[^\s@<>()"]+$/;

export function CalendarEventView({ node, locale }: { node: UiNodeOf<"calendar_event">; locale: string }) {
  const titleId = useId();
  const labels = labelsFor(locale);
  const attendees = node.attendees ?? [];
  return (
    <article className={styles.event} data-status={node.status} data-testid="ui-node-calendar_event" aria-labelledby={titleId}>
      <h4 id={titleId} className={styles.eventTitle}>
        {node.title}
      </h4>
      {node.status !== "confirmed" ? (
        <span className={styles.badge} data-status={node.status === "cancelled" ? "error" : "warning"}>
          {labels.status[node.status]}
        </span>
      ) : null}
      <p className={styles.eventWhen}>
        <EventWhen node={node} locale={locale} labels={labels} />
      </p>
      {node.location || node.organizer ? (
        <dl className={styles.eventMeta}>
          {node.location ? (
            <div>
              <dt>{labels.location}</dt>
              <dd>{node.location}</dd>
            </div>
          ) : null}
          {node.organizer ? (
            <div>
              <dt>{labels.organizer}</dt>
              <dd>
                <PersonName person={node.organizer} />
              </dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      {attendees.length > 0 ? (
        <ul className={`${styles.attendees} ${styles.eventMeta}`} aria-label={labels.attendees}>
          {attendees.map((attendee, i) => (
            <li key={i}>
              <PersonName person={attendee} />
              {attendee.response ? <span className={styles.response}> ({labels.response[attendee.response]})</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {node.description ? <p className={styles.eventDescription}>{node.description}</p> : null}
    </article>
  );
}

function EventWhen({ node, locale, labels }: { node: UiNodeOf<"calendar_event">; locale: string; labels: RendererLabels }) {
  const { start, end } = node;
  const viewerZone = useContext(ViewerZoneContext);
  // An all-day event is a date where it was made; a timed one is shown in the viewer's zone.
  const timeZone = node.allDay ? node.timeZone : (viewerZone ?? node.timeZone);
  const withZone = !viewerZone;
  if (node.allDay) {
    // An all-day end is exclusive: the event on the 21st ends at midnight starting the 22nd.
    const lastMoment = end ? justBefore(end) : undefined;
    const multiDay = lastMoment !== undefined && !isSameDay(start, lastMoment, locale, timeZone);
    return (
      <>
        <Time iso={start} text={formatInstant(start, { locale, timeZone, parts: "date" })} />
        {multiDay ? (
          <>
            {" – "}
            <Time iso={end!} text={formatInstant(lastMoment, { locale, timeZone, parts: "date", zoneOf: start })} />
          </>
        ) : null}
        {" · "}
        {labels.allDay}
      </>
    );
  }
  if (!end) {
    return <Time iso={start} text={formatInstant(start, { locale, timeZone, parts: "datetime", withZone })} />;
  }
  const endParts = isSameDay(start, end, locale, timeZone) ? "time" : "datetime";
  return (
    <>
      <Time iso={start} text={formatInstant(start, { locale, timeZone, parts: "datetime" })} />
      {" – "}
      <Time iso={end} text={formatInstant(end, { locale, timeZone, parts: endParts, withZone, zoneOf: start })} />
    </>
  );
}

function Time({ iso, text }: { iso: string; text: string }) {
  // Server and browser ICU data can word a date slightly differently.
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {text}
    </time>
  );
}

function PersonName({ person }: { person: Person }) {
  const name = person.name ?? person.email ?? "";
  if (person.email && EMAIL.test(person.email)) {
    return <a href={`mailto:${person.email}`}>{name}</a>;
  }
  return <>{name}</>;
}

export function ContactView({ node, locale }: { node: UiNodeOf<"contact">; locale: string }) {
  const nameId = useId();
  const labels = labelsFor(locale);
  const role = [node.jobTitle, node.company].filter(Boolean).join(" · ");
  const dialable = node.phone?.replace(/[^\d+]/g, "") ?? "";
  return (
    <article className={styles.contact} data-testid="ui-node-contact" aria-labelledby={nameId}>
      <h4 id={nameId} className={styles.contactName}>
        {node.name}
      </h4>
      {role ? <p className={styles.caption}>{role}</p> : null}
      {node.email || node.phone ? (
        <address className={styles.contactDetails}>
          {node.email ? (
            <span>
              <span className={styles.visuallyHidden}>{labels.email}: </span>
              {EMAIL.test(node.email) ? <a href={`mailto:${node.email}`}>{node.email}</a> : node.email}
            </span>
          ) : null}
          {node.phone ? (
            <span>
              <span className={styles.visuallyHidden}>{labels.phone}: </span>
              {dialable.length >= 3 ? <a href={`tel:${dialable}`}>{node.phone}</a> : node.phone}
            </span>
          ) : null}
        </address>
      ) : null}
    </article>
  );
}
