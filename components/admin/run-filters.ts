import { z } from "zod";
import type { RunFilters } from "@/server/admin/service/runs";

// The runs table keeps its filters in the URL, so a filtered view can be shared or
// bookmarked. Values that do not parse are dropped rather than failing the page.

export const RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;

const one = (v: unknown) => (Array.isArray(v) ? v[0] : v);
const text = (max: number) => z.preprocess(one, z.string().trim().min(1).max(max).optional()).catch(undefined);
const instant = z.preprocess(one, z.iso.datetime({ offset: true }).optional()).catch(undefined);

const statusSchema = z.enum(RUN_STATUSES);

const searchSchema = z.object({
  status: z
    .preprocess((v) => (Array.isArray(v) ? v.join(",") : v), z.string().optional())
    .transform((v) => (v ?? "").split(",").flatMap((s) => statusSchema.safeParse(s).data ?? []))
    .catch([]),
  user: text(254),
  thread: z.preprocess(one, z.uuid().optional()).catch(undefined),
  protocol: text(64),
  from: instant,
  to: instant,
  minMs: z.preprocess(one, z.coerce.number().int().min(0).max(7 * 86_400_000).optional()).catch(undefined),
  error: z.preprocess(one, z.enum(["yes", "no"]).optional()).catch(undefined),
  waiting: z.preprocess(one, z.literal("yes").optional()).catch(undefined),
  attempts: z.preprocess(one, z.enum(["moved", "lease_expired"]).optional()).catch(undefined),
});

export type SearchParamsRecord = Record<string, string | string[] | undefined>;

export function runFiltersFromSearch(params: SearchParamsRecord): RunFilters {
  const s = searchSchema.parse(params);
  const filters: RunFilters = {};
  if (s.status.length) filters.statuses = s.status;
  if (s.user) filters.userEmail = s.user;
  if (s.thread) filters.threadId = s.thread;
  if (s.protocol) filters.protocol = s.protocol;
  if (s.from) filters.createdFrom = new Date(s.from);
  if (s.to) filters.createdTo = new Date(s.to);
  if (s.minMs !== undefined) filters.minDurationMs = s.minMs;
  if (s.error) filters.hasError = s.error === "yes";
  if (s.waiting) filters.awaitingApproval = true;
  if (s.attempts) filters.attempts = s.attempts;
  return filters;
}

export function runFiltersToSearch(filters: RunFilters): string {
  const q = new URLSearchParams();
  if (filters.statuses?.length) q.set("status", filters.statuses.join(","));
  if (filters.userEmail) q.set("user", filters.userEmail);
  if (filters.threadId) q.set("thread", filters.threadId);
  if (filters.protocol) q.set("protocol", filters.protocol);
  if (filters.createdFrom) q.set("from", filters.createdFrom.toISOString());
  if (filters.createdTo) q.set("to", filters.createdTo.toISOString());
  if (filters.minDurationMs !== undefined) q.set("minMs", String(filters.minDurationMs));
  if (filters.hasError !== undefined) q.set("error", filters.hasError ? "yes" : "no");
  if (filters.awaitingApproval) q.set("waiting", "yes");
  if (filters.attempts) q.set("attempts", filters.attempts);
  return q.toString();
}
