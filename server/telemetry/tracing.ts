import "server-only";
import { randomBytes } from "node:crypto";
import { context, isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { env } from "../env";

// OpenTelemetry tracing. W3C trace-context propagation and an AsyncLocalStorage context manager
// are registered once per process, always: every request and run has a trace (the client's
// `traceparent`, else a fresh one) that its runners and model calls receive and its client is told
// of, whether or not spans are exported. Export is on only when the standard
// OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT names a collector: then a provider with a batching OTLP/HTTP
// exporter records the spans. Off, the API's no-op tracer answers every call: its spans record
// nothing and carry their parent's trace, so the trace passes through Dispatch unchanged.

export const tracingEnabled = !env.OTEL_SDK_DISABLED && !!(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT);

const slot = Symbol.for("dispatch.tracing");
type Installed = { provider: TracerProvider };

function install(): Installed | null {
  const g = globalThis as { [slot]?: Installed | null };
  if (g[slot] !== undefined) return g[slot];
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (!tracingEnabled) return (g[slot] = null);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME, [ATTR_SERVICE_VERSION]: "0.1.0" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY })],
  });
  trace.setGlobalTracerProvider(provider);
  return (g[slot] = { provider });
}

/** The tracer of Dispatch's spans; the no-op one when tracing is off. */
export function tracer(): Tracer {
  install();
  return trace.getTracer("dispatch");
}

/**
 * The trace a client continues with its W3C `traceparent` (and `tracestate`) headers; without a
 * valid one, a fresh trace (when spans are exported, the request's span starts one itself).
 */
export function contextFromHeaders(headers: Headers): Context {
  install();
  if (headers.has("traceparent")) {
    const extracted = propagation.extract(ROOT_CONTEXT, Object.fromEntries(headers));
    if (trace.getSpanContext(extracted)) return extracted;
  }
  return tracingEnabled ? ROOT_CONTEXT : freshTrace();
}

/**
 * A new trace: the parent of the no-op tracer's spans, so they carry its id; sampled when spans
 * are exported, so a run started outside any request (a worker's) is still recorded.
 */
function freshTrace(): Context {
  const traceFlags = tracingEnabled ? TraceFlags.SAMPLED : TraceFlags.NONE;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex"), traceFlags });
}

/** The W3C trace-context headers (`traceparent`, `tracestate`) for an outgoing call in `ctx`'s trace. */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  install();
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** The trace id of the active span (recorded or passed through), for log lines and runners. */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** What a run keeps of its trace, to carry it to its runner and model calls wherever it executes. */
export type RunTrace = { traceParent: string; traceState: string | null };

/** The active trace as a run keeps it; a fresh one for a run started outside any request's trace. */
export function runTraceOf(ctx: Context = context.active()): RunTrace {
  const headers = traceHeaders(trace.getSpanContext(ctx) ? ctx : freshTrace());
  return { traceParent: headers.traceparent!, traceState: headers.tracestate ?? null };
}

/** The context of a run's kept trace (its spans' parent), or null when the run kept none. */
export function runTraceContext(kept: RunTrace): Context | null {
  if (!kept.traceParent) return null;
  install();
  const carrier = { traceparent: kept.traceParent, ...(kept.traceState ? { tracestate: kept.traceState } : {}) };
  const ctx = propagation.extract(ROOT_CONTEXT, carrier);
  return trace.getSpanContext(ctx) ? ctx : null;
}

/** The trace id in a W3C `traceparent`. */
export const traceIdOf = (traceParent: string): string => traceParent.split("-")[1] ?? "";

/** Runs `work` inside `span` (its children nest under it), ending the span, with an error status when it throws. */
export async function inSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/** Sends the spans still buffered (before a process exits or a test reads them). */
export async function flushTraces(): Promise<void> {
  await install()?.provider.forceFlush();
}

/** A database statement of the run's own (accepting it, closing it) as a client span, so a trace shows the database's time. */
export function dbSpan<T>(operation: string, work: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(`db ${operation}`, { kind: SpanKind.CLIENT, attributes: { "db.system.name": "postgresql", "db.operation.name": operation } });
  return inSpan(span, work);
}
