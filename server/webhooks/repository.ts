import "server-only";
import { getPool } from "../db";

// Every statement about webhook endpoints and their deliveries. An attempt is a lease on its
// delivery row (one instance at a time; an expired lease is an attempt whose instance died), and
// its outcome is written with the next attempt's job in one statement.

export type EndpointRow = {
  id: string;
  userId: string;
  bindingId: string | null;
  url: string;
  description: string | null;
  events: string[];
  consecutiveFailures: number;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
};

export type DeliveryRow = {
  id: string;
  endpointId: string;
  eventType: string;
  payload: unknown;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
};

/** Whose endpoints a statement may touch: one user's, or (an admin's console) anyone's. */
export type EndpointScope = { userId: string | null };

const ENDPOINT = `e.id, e.user_id as "userId", e.binding_id as "bindingId", e.url, e.description, e.events,
  e.consecutive_failures as "consecutiveFailures", e.failing_since as "failingSince", e.disabled_at as "disabledAt",
  e.disabled_reason as "disabledReason", e.created_at as "createdAt"`;
const DELIVERY = `d.id, d.endpoint_id as "endpointId", d.event_type as "eventType", d.payload, d.status, d.attempts,
  d.next_attempt_at as "nextAttemptAt", d.last_attempt_at as "lastAttemptAt", d.last_status as "lastStatus",
  d.last_error as "lastError", d.delivered_at as "deliveredAt", d.created_at as "createdAt"`;
const JOB = `graphile_worker.add_job('dispatch_webhook_deliver', json_build_object('id', d.id), run_at := d.next_attempt_at)`;

/** The new endpoint; null when `bindingId` names no binding. */
export async function insertEndpoint(e: { userId: string; bindingId: string | null; url: string; description: string | null; events: string[]; secretSealed: string }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(
    `insert into webhook_endpoints as e (id, user_id, binding_id, url, description, events, secret_sealed, updated_at)
     select gen_random_uuid(), $1, $2, $3, $4, $5, $6, now() where $2::uuid is null or exists (select 1 from agent_bindings b where b.id = $2)
     returning ${ENDPOINT}`,
    [e.userId, e.bindingId, e.url, e.description, e.events, e.secretSealed],
  );
  return rows[0] ?? null;
}

export async function listEndpoints({ userId }: EndpointScope): Promise<EndpointRow[]> {
  const { rows } = await getPool().query<EndpointRow>(
    `select ${ENDPOINT} from webhook_endpoints e where $1::uuid is null or e.user_id = $1 order by e.created_at desc, e.id limit 500`,
    [userId],
  );
  return rows;
}

export async function findEndpoint({ id, userId }: EndpointScope & { id: string }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(`select ${ENDPOINT} from webhook_endpoints e where e.id = $1 and ($2::uuid is null or e.user_id = $2)`, [id, userId]);
  return rows[0] ?? null;
}

/** Changes what is given; `enabled` true also clears the failure streak and the notice. */
export async function updateEndpoint(u: EndpointScope & { id: string; url?: string; events?: string[]; description?: string | null; enabled?: boolean }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(
    `update webhook_endpoints e set
       url = coalesce($3, e.url), events = coalesce($4, e.events),
       description = case when $5::boolean then $6 else e.description end,
       disabled_at = case when $7::boolean is null then e.disabled_at when $7 then null else coalesce(e.disabled_at, now()) end,
       disabled_reason = case when $7::boolean is null then e.disabled_reason when $7 then null
                              when e.disabled_at is null then 'Disabled by its owner' else e.disabled_reason end,
       consecutive_failures = case when $7::boolean then 0 else e.consecutive_failures end,
       failing_since = case when $7::boolean then null else e.failing_since end,
       updated_at = now()
     where e.id = $1 and ($2::uuid is null or e.user_id = $2) returning ${ENDPOINT}`,
    [u.id, u.userId, u.url ?? null, u.events ?? null, u.description !== undefined, u.description ?? null, u.enabled ?? null],
  );
  return rows[0] ?? null;
}

export async function deleteEndpoint({ id, userId }: EndpointScope & { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from webhook_endpoints where id = $1 and ($2::uuid is null or user_id = $2)`, [id, userId]);
  return (rowCount ?? 0) > 0;
}

/** The new secret signs from now on; the old one signs beside it until `previousUntil`. */
export async function rotateEndpointSecret(r: EndpointScope & { id: string; secretSealed: string; previousUntil: Date }): Promise<EndpointRow | null> {
  const { rows } = await getPool().query<EndpointRow>(
    `update webhook_endpoints e set previous_secret_sealed = e.secret_sealed, previous_secret_expires_at = $4, secret_sealed = $3, updated_at = now()
     where e.id = $1 and ($2::uuid is null or e.user_id = $2) returning ${ENDPOINT}`,
    [r.id, r.userId, r.secretSealed, r.previousUntil],
  );
  return rows[0] ?? null;
}

export async function listDeliveries(q: EndpointScope & { endpointId: string; limit: number; status?: string }): Promise<DeliveryRow[]> {
  const { rows } = await getPool().query<DeliveryRow>(
    `select ${DELIVERY} from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
     where d.endpoint_id = $1 and ($2::uuid is null or e.user_id = $2) and ($3::text is null or d.status = $3)
     order by d.created_at desc, d.id limit $4`,
    [q.endpointId, q.userId, q.status ?? null, q.limit],
  );
  return rows;
}

/**
 * Sends a delivery again (the same webhook-id), now, with a fresh round of attempts, on an enabled
 * endpoint: `endpoint_disabled` or `not_found` otherwise.
 */
export async function requeueDelivery(r: EndpointScope & { endpointId: string; id: string }): Promise<DeliveryRow | "endpoint_disabled" | "not_found"> {
  const { rows } = await getPool().query<DeliveryRow & { disabled: boolean; job: unknown }>(
    `with target as (
       select d.id, e.disabled_at is not null as disabled from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
       where d.id = $1 and d.endpoint_id = $2 and ($3::uuid is null or e.user_id = $3) for update of d),
     d as (
       update webhook_deliveries d set status = 'pending', attempts = 0, next_attempt_at = now(), lease_until = null, leased_by = null
       from target t where d.id = t.id and not t.disabled returning ${DELIVERY})
     select t.disabled, d.*, (select graphile_worker.add_job('dispatch_webhook_deliver', json_build_object('id', d.id)) from d) as job
     from target t left join d on true`,
    [r.id, r.endpointId, r.userId],
  );
  const row = rows[0];
  if (!row) return "not_found";
  if (row.disabled) return "endpoint_disabled";
  const { disabled: _disabled, job: _job, ...delivery } = row;
  return delivery;
}

export type ClaimedDelivery = {
  id: string;
  payload: unknown;
  attempts: number;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  endpointDisabled: boolean;
};

/** Takes the next attempt of a due delivery for `instance` until the lease ends; null when it is not due or someone has it. */
export async function claimDelivery(c: { id: string; leaseMs: number; instance: string }): Promise<ClaimedDelivery | null> {
  const { rows } = await getPool().query<ClaimedDelivery>(
    `update webhook_deliveries d set attempts = d.attempts + 1, lease_until = now() + $2 * interval '1 millisecond', leased_by = $3, last_attempt_at = now()
     from webhook_endpoints e
     where d.id = $1 and e.id = d.endpoint_id and d.status = 'pending' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
     returning d.id, d.payload, d.attempts, e.url, e.secret_sealed as "secretSealed", e.disabled_at is not null as "endpointDisabled",
       case when e.previous_secret_expires_at > now() then e.previous_secret_sealed end as "previousSecretSealed"`,
    [c.id, c.leaseMs, c.instance],
  );
  return rows[0] ?? null;
}

/** The attempt succeeded: the delivery is done and its endpoint's failure streak ends. */
export async function recordDelivered(r: { id: string; instance: string; status: number }): Promise<void> {
  await getPool().query(
    `with d as (
       update webhook_deliveries set status = 'delivered', delivered_at = now(), last_status = $3, last_error = null, lease_until = null, leased_by = null
       where id = $1 and leased_by = $2 returning endpoint_id)
     update webhook_endpoints e set consecutive_failures = 0, failing_since = null from d where e.id = d.endpoint_id`,
    [r.id, r.instance, r.status],
  );
}

export type FailedAttempt = {
  id: string;
  instance: string;
  status: number | null;
  error: string;
  /** No attempt follows: the delivery has failed for good. */
  last: boolean;
  retryInMs: number;
  /** The endpoint is disabled once this many attempts in a row failed over at least `disableAfterSeconds`. */
  disableAfterFailures: number;
  disableAfterSeconds: number;
};

/** The attempt failed: the next one is scheduled (its job added), the streak grows, and a sustained one disables the endpoint. */
export async function recordFailed(f: FailedAttempt): Promise<{ disabled: boolean }> {
  const { rows } = await getPool().query<{ disabled: boolean }>(
    `with d as (
       update webhook_deliveries set status = case when $5::boolean then 'failed' else 'pending' end,
         next_attempt_at = now() + $6 * interval '1 millisecond', last_status = $3, last_error = $4, lease_until = null, leased_by = null
       where id = $1 and leased_by = $2 returning id, status, next_attempt_at, endpoint_id),
     e as (
       update webhook_endpoints e set consecutive_failures = e.consecutive_failures + 1, failing_since = coalesce(e.failing_since, now()),
         disabled_at = case when e.disabled_at is null and e.consecutive_failures + 1 >= $7
                             and coalesce(e.failing_since, now()) <= now() - $8 * interval '1 second' then now() else e.disabled_at end,
         disabled_reason = case when e.disabled_at is null and e.consecutive_failures + 1 >= $7
                             and coalesce(e.failing_since, now()) <= now() - $8 * interval '1 second'
                           then format('Disabled automatically after %s failed attempts in a row since %s (last: %s). Fix the receiver, then enable the endpoint again.',
                                       e.consecutive_failures + 1, to_char(coalesce(e.failing_since, now()) at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), $4)
                           else e.disabled_reason end
       from d where e.id = d.endpoint_id returning e.disabled_at is not null as disabled)
     select (select disabled from e) as disabled, (select ${JOB} from d where d.status = 'pending') as job`,
    [f.id, f.instance, f.status, f.error, f.last, f.retryInMs, f.disableAfterFailures, f.disableAfterSeconds],
  );
  return { disabled: rows[0]?.disabled ?? false };
}

/** A delivery whose endpoint was disabled is not sent: it fails, saying why. */
export async function recordAbandoned(r: { id: string; instance: string; error: string }): Promise<void> {
  await getPool().query(
    `update webhook_deliveries set status = 'failed', last_error = $3, lease_until = null, leased_by = null, attempts = greatest(attempts - 1, 0)
     where id = $1 and leased_by = $2`,
    [r.id, r.instance, r.error],
  );
}

/** Deliveries due for at least `graceMs` that nobody attempts (no job woke a deliverer, or its instance died). */
export async function dueDeliveryIds({ limit, graceMs }: { limit: number; graceMs: number }): Promise<string[]> {
  const { rows } = await getPool().query<{ id: string }>(
    `select id from webhook_deliveries
     where status = 'pending' and next_attempt_at <= now() - $2 * interval '1 millisecond' and (lease_until is null or lease_until < now())
     order by next_attempt_at limit $1`,
    [limit, graceMs],
  );
  return rows.map((r) => r.id);
}
