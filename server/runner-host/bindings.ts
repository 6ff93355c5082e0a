import "server-only";
import { z } from "zod";
import { AppError } from "../kernel/errors";
import { describeIssues, type DynamicFormItem } from "../protocols/runner/manifest";
import { findUserByEmail } from "../accounts/repository/users";
import { ensureBuiltinRunner } from "./builtin";
import { bindingPolicySchema, type BindingPolicy } from "./policy";
import { findAdminThread } from "../admin/repository/threads";
import { dropBindingSnapshot } from "./binding-snapshot";
import { findBinding, findRunner, insertBinding, updateBinding, type BindingRow, type BindingScope } from "./repository/runners";
import type { MultitaskStrategy } from "../protocols/ag-ui/multitask";

// Bindings are host-internal (spec §2): which runner answers which events for whom, with the
// config its manifest's form describes and the resource policy the admin chose.

export const ENTRY_EVENT_TYPES = ["message.received"] as const;

function fieldSchema(item: DynamicFormItem): z.ZodType {
  switch (item.type) {
    case "string":
    case "text":
    case "secret":
      return z.string().max(100_000);
    case "integer":
      return z.int();
    case "number":
      return z.number();
    case "boolean":
      return z.boolean();
    case "select": {
      const names = (item.options ?? []).map((o) => o.name);
      return z.string().refine((v) => names.includes(v), `must be one of ${names.join(", ") || "(no options)"}`);
    }
    case "json":
      return z.json();
  }
}

/** Checks a binding's config against the runner's config_schema and fills defaults. */
export function validateBindingConfig(schema: DynamicFormItem[], config: Record<string, unknown>): Record<string, unknown> {
  const shape: Record<string, z.ZodType> = {};
  for (const item of schema) {
    const field = fieldSchema(item);
    shape[item.name] = item.default !== undefined ? field.default(item.default as never) : item.required ? field : field.optional();
  }
  const parsed = z.strictObject(shape).safeParse(config);
  if (!parsed.success) throw new AppError("BAD_REQUEST", `Binding config does not match the runner's config_schema: ${describeIssues(parsed.error)}`);
  return parsed.data as Record<string, unknown>;
}

export function validateBindingPolicy(policy: unknown): BindingPolicy {
  const parsed = bindingPolicySchema.safeParse(policy ?? {});
  if (!parsed.success) throw new AppError("BAD_REQUEST", `Binding policy is invalid: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export async function createBinding(opts: {
  runnerId: string;
  email?: string | null;
  threadId?: string | null;
  eventTypes?: string[];
  config?: Record<string, unknown>;
  policy?: unknown;
  /** Runs of this binding run project_cli writes without asking a person (automation; docs/approvals.md). */
  autoApprove?: boolean;
  /** What a run of this binding does on a busy thread when its request names no strategy (none: reject). */
  multitaskStrategy?: MultitaskStrategy | null;
}): Promise<BindingRow> {
  await ensureBuiltinRunner();
  const runner = await findRunner({ id: opts.runnerId });
  if (!runner) throw new AppError("NOT_FOUND", `Runner ${opts.runnerId} not found; register its endpoint first (runner:register) or check the id`);
  if (!runner.available) throw new AppError("CONFLICT", `Runner ${opts.runnerId} is no longer listed by its endpoint; refresh the endpoint or pick another runner`);
  let scope: BindingScope = "default";
  let userId: string | null = null;
  let threadId: string | null = null;
  if (opts.threadId) {
    const thread = z.uuid().safeParse(opts.threadId).success ? await findAdminThread({ id: opts.threadId }) : null;
    if (!thread) throw new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
    scope = "thread";
    threadId = thread.id;
    userId = thread.userId;
  } else if (opts.email) {
    const user = await findUserByEmail({ email: opts.email.trim().toLowerCase() });
    if (!user) throw new AppError("NOT_FOUND", `No user with email ${opts.email}`);
    scope = "user";
    userId = user.id;
  }
  const eventTypes = opts.eventTypes?.length ? [...new Set(opts.eventTypes)] : [...ENTRY_EVENT_TYPES];
  const unknown = eventTypes.filter((t) => !(ENTRY_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) throw new AppError("BAD_REQUEST", `Unknown event type ${unknown.join(", ")}; this host emits ${ENTRY_EVENT_TYPES.join(", ")}`);
  const binding = await insertBinding({
    runnerId: runner.id,
    scope,
    userId,
    threadId,
    eventTypes,
    config: validateBindingConfig(runner.manifest.config_schema, opts.config ?? {}),
    policy: validateBindingPolicy(opts.policy),
    autoApprove: opts.autoApprove ?? false,
    multitaskStrategy: opts.multitaskStrategy ?? null,
  });
  // This process plans its next run from the database; others find out when it checks their plan.
  dropBindingSnapshot();
  return binding;
}

export async function changeBinding(opts: {
  id: string;
  enabled?: boolean;
  config?: Record<string, unknown>;
  policy?: unknown;
  autoApprove?: boolean;
  /** null: no default of its own (reject). */
  multitaskStrategy?: MultitaskStrategy | null;
}): Promise<BindingRow> {
  let config: Record<string, unknown> | undefined;
  if (opts.config) {
    const binding = await findBinding({ id: opts.id });
    if (!binding) throw new AppError("NOT_FOUND", `Binding ${opts.id} not found`);
    const runner = await findRunner({ id: binding.runnerId });
    config = validateBindingConfig(runner?.manifest.config_schema ?? [], opts.config);
  }
  const updated = await updateBinding(opts.id, {
    enabled: opts.enabled,
    config,
    policy: opts.policy === undefined ? undefined : validateBindingPolicy(opts.policy),
    autoApprove: opts.autoApprove,
    multitaskStrategy: opts.multitaskStrategy,
  });
  if (!updated) throw new AppError("NOT_FOUND", `Binding ${opts.id} not found`);
  dropBindingSnapshot();
  return updated;
}

/** Secret-typed config values never leave the host's admin surfaces in the clear. */
export function maskedConfig(schema: DynamicFormItem[], config: Record<string, unknown>): Record<string, unknown> {
  const secrets = new Set(schema.filter((i) => i.type === "secret").map((i) => i.name));
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, secrets.has(k) && v ? "••••••" : v]));
}
