import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';

/**
 * The W3C trace context a message continues (https://www.w3.org/TR/trace-context/): its
 * `traceparent` and `tracestate` headers. It travels in the AMQP headers of every message and is
 * stored with each outbox row and each webhook delivery, so that a message sent later still
 * continues the trace of the request that caused it (docs/architecture.md, "Traces").
 *
 * While tracing is off (libs/observability, tracing.ts) the API below is OpenTelemetry's no-op: no
 * propagator injects anything, no span records, and a trace context is undefined.
 */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

export function messagingTracer(): Tracer {
  return trace.getTracer('@bedrequest/messaging');
}

/** The trace context of `from` (the active context by default); undefined outside a trace or while tracing is off. */
export function traceContextOf(from: Context = context.active()): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  const { traceparent, tracestate } = carrier;
  if (!traceparent) return undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** `headers` with the propagation headers of `from` added (the same object when there are none). */
export function withTraceHeaders(headers: Record<string, string> | undefined, from: Context): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return Object.keys(carrier).length === 0 ? headers : { ...headers, ...carrier };
}

/** AMQP header values arrive as strings or, from some clients, as byte buffers. */
const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (value === undefined || value === null) return undefined;
    return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  },
};

/** The context continued by a message's headers or a stored trace context; the root context when they carry none. */
export function contextFrom(carrier: Record<string, unknown> | TraceContext | null | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier as Record<string, unknown>, headerGetter) : ROOT_CONTEXT;
}

/** Ends `span`, marking it failed with `error`'s message when there is one. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}
