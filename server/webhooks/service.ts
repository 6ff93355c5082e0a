import "server-only";
import { z } from "zod";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { sealSecret } from "../lib/seal";
import { mayConnectTo } from "../net/public-address";
import { userWithEmail } from "../accounts/service/users";
import { WEBHOOK_SECRET_PURPOSE } from "./deliver";
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  requeueDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  type DeliveryRow,
  type EndpointRow,
  type EndpointScope,
} from "./repository";
import type { CreateWebhookEndpoint, UpdateWebhookEndpoint } from "./schemas";
import { newWebhookSecret } from "./signing";

// Webhook endpoints for their owners (an API key's user, over REST) and for admins (the console,
// where `userId: null` reaches everyone's). Delivery itself is deliver.ts, driven by the queue.

export { deliverDueWebhooks, deliverWebhook, WEBHOOK_DELIVER_TASK } from "./deliver";

/** How long a rotated-out secret keeps signing beside the new one. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function endpointView(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events as CreateWebhookEndpoint["events"],
    bindingId: e.bindingId,
    enabled: e.disabledAt === null,
    disabledAt: iso(e.disabledAt),
    disabledReason: e.disabledReason,
    consecutiveFailures: e.consecutiveFailures,
    failingSince: iso(e.failingSince),
    createdAt: e.createdAt.toISOString(),
  };
}

export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    eventType: d.eventType as CreateWebhookEndpoint["events"][number],
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    lastAttemptAt: iso(d.lastAttemptAt),
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    deliveredAt: iso(d.deliveredAt),
    createdAt: d.createdAt.toISOString(),
    payload: d.payload,
  };
}

/** SSRF rules as for runners: a public address, or a host the operator listed in RUNNER_ALLOWED_HOSTS. */
async function checkUrl(url: string): Promise<void> {
  if (!(await mayConnectTo(new URL(url).hostname, env.RUNNER_ALLOWED_HOSTS))) {
    throw new AppError("BAD_REQUEST", "url must point at a public address (its host resolves to a private or local one; an operator may allow it in RUNNER_ALLOWED_HOSTS)", { field: "url" });
  }
}

const notFound = (id: string) => new AppError("NOT_FOUND", `No webhook endpoint ${id}`);
const isUuid = (id: string) => z.uuid().safeParse(id).success;

/** The scope, for an id that can name a row; 404 for one that cannot (so no malformed id reaches SQL). */
function scoped<T extends { id: string; endpointId?: string }>(q: T): T {
  if (!isUuid(q.id)) throw q.endpointId ? new AppError("NOT_FOUND", `No delivery ${q.id}`) : notFound(q.id);
  if (q.endpointId !== undefined && !isUuid(q.endpointId)) throw notFound(q.endpointId);
  return q;
}

/** Registers an endpoint; its secret is in the answer, and never again. */
export async function createWebhookEndpoint(input: CreateWebhookEndpoint & { userId: string; bindingId?: string }) {
  await checkUrl(input.url);
  const secret = newWebhookSecret();
  const row = await insertEndpoint({
    userId: input.userId,
    bindingId: input.bindingId ?? null,
    url: input.url,
    description: input.description ?? null,
    events: [...new Set(input.events)],
    secretSealed: sealSecret(WEBHOOK_SECRET_PURPOSE, secret),
  });
  if (!row) throw new AppError("NOT_FOUND", `No agent binding ${input.bindingId}`, { field: "bindingId" });
  return { ...endpointView(row), secret };
}

/** The same for the user with `email` (the admin CLI). */
export async function createWebhookEndpointForEmail(input: CreateWebhookEndpoint & { email: string; bindingId?: string }) {
  const user = await userWithEmail(input.email.trim());
  if (!user) throw new AppError("NOT_FOUND", `No user with email ${input.email}`);
  return createWebhookEndpoint({ ...input, userId: user.id });
}

export async function listWebhookEndpoints(scope: EndpointScope) {
  return (await listEndpoints(scope)).map(endpointView);
}

/** Everyone's endpoints with their owners, for the console. */
export async function listEveryWebhookEndpoint() {
  return (await listEndpoints({ userId: null })).map((e) => ({ ...endpointView(e), userId: e.userId }));
}

export async function getWebhookEndpoint(scope: EndpointScope & { id: string }) {
  const row = await findEndpoint(scoped(scope));
  if (!row) throw notFound(scope.id);
  return endpointView(row);
}

export async function updateWebhookEndpoint(input: EndpointScope & UpdateWebhookEndpoint & { id: string }) {
  if (input.url) await checkUrl(input.url);
  const row = await updateEndpoint({ ...scoped(input), events: input.events && [...new Set(input.events)] });
  if (!row) throw notFound(input.id);
  return endpointView(row);
}

export async function deleteWebhookEndpoint(scope: EndpointScope & { id: string }): Promise<void> {
  if (!(await deleteEndpoint(scoped(scope)))) throw notFound(scope.id);
}

/** A new secret, returned once; the old one keeps signing beside it for a day, so receivers switch without a gap. */
export async function rotateWebhookSecret(scope: EndpointScope & { id: string }) {
  const secret = newWebhookSecret();
  const row = await rotateEndpointSecret({ ...scoped(scope), secretSealed: sealSecret(WEBHOOK_SECRET_PURPOSE, secret), previousUntil: new Date(Date.now() + ROTATION_OVERLAP_MS) });
  if (!row) throw notFound(scope.id);
  return { ...endpointView(row), secret };
}

export async function listWebhookDeliveries(q: EndpointScope & { endpointId: string; limit: number; status?: DeliveryRow["status"] }) {
  await getWebhookEndpoint({ userId: q.userId, id: q.endpointId });
  return (await listDeliveries(q)).map(deliveryView);
}

/** Sends a delivery again now, under its webhook-id, with a fresh round of attempts. */
export async function redeliverWebhook(q: EndpointScope & { endpointId: string; id: string }) {
  const outcome = await requeueDelivery(scoped(q));
  if (outcome === "not_found") throw new AppError("NOT_FOUND", `No delivery ${q.id} of webhook endpoint ${q.endpointId}`);
  if (outcome === "endpoint_disabled") throw new AppError("CONFLICT", "The endpoint is disabled: enable it first (PATCH enabled: true)");
  return deliveryView(outcome);
}
