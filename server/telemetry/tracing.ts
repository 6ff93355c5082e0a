import "server-only";
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { env } from "../env";

// OpenTelemetry tracing, on only when the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT names a
// collector: then a provider with a batching OTLP/HTTP exporter, W3C trace-context propagation and
// an AsyncLocalStorage context manager are registered once per process. Off, the API's no-op
// tracer answers every call, so the spans below cost a function call and nothing is exported.

export const tracingEnabled = !env.OTEL_SDK_DISABLED && !!(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT);

const slot = Symbol.for("dispatch.tracing");
type Installed = { provider: TracerProvider };

function install(): Installed | null {
  const g = globalThis as { [slot]?: Installed | null };
  if (g[slot] !== undefined) return g[slot];
  if (!tracingEnabled) return (g[slot] = null);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME, [ATTR_SERVICE_VERSION]: "0.1.0" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return (g[slot] = { provider });
}

/** The tracer of Dispatch's spans; the no-op one when tracing is off. */
export function tracer(): Tracer {
  install();
  return trace.getTracer("dispatch");
}

/** The trace a client continues with its W3C `traceparent` (and `tracestate`) headers, else the active context. */
export function contextFromHeaders(headers: Headers): Context {
  install();
  if (!tracingEnabled || !headers.has("traceparent")) return context.active();
  return propagation.extract(context.active(), Object.fromEntries(headers));
}

/** The W3C trace-context headers for an outgoing call in the active context (empty when tracing is off). */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (tracingEnabled) propagation.inject(ctx, carrier);
  return carrier;
}

/** The trace id of the active span, if one is being recorded (for log lines and runners). */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

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
