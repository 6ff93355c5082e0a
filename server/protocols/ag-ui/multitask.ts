// What a new run does when its thread already has one in progress, as a client asks for it:
// `reject` (the default: 409 naming the run in progress), `enqueue` (the run waits its turn and
// starts when the thread is free: 202 at once, status queued) or `interrupt` (cancel what the
// thread has in progress, wait for it to end, then start). AG-UI clients send it as
// `forwardedProps.multitaskStrategy`, the Agent API as `multitask_strategy`; a runner binding may
// set the default for a request that names none.
export const MULTITASK_STRATEGIES = ["reject", "enqueue", "interrupt"] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** The strategy in `forwardedProps`, or a message naming the field and the values it takes. */
export function forwardedMultitaskStrategy(props: unknown): { ok: true; strategy: MultitaskStrategy | undefined } | { ok: false; message: string } {
  const value = props && typeof props === "object" && "multitaskStrategy" in props ? (props as { multitaskStrategy: unknown }).multitaskStrategy : undefined;
  if (value === undefined || value === null) return { ok: true, strategy: undefined };
  if (typeof value === "string" && (MULTITASK_STRATEGIES as readonly string[]).includes(value)) return { ok: true, strategy: value as MultitaskStrategy };
  return { ok: false, message: `forwardedProps.multitaskStrategy: must be one of ${MULTITASK_STRATEGIES.join(", ")}, not ${JSON.stringify(value)}` };
}
