import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Marks a logger whose bindings already name a trace (`withTrace`): its lines, and its children's
 * (pino's children inherit from their parent), do not get the active span's ids besides.
 */
const TRACE_BOUND = Symbol('trace bound');

/** A child of `logger` whose lines name the trace and span of `spanContext` (a message's, where the active span is its batch's). */
export function withTrace(logger: Logger, bindings: Record<string, unknown>, spanContext: { traceId: string; spanId: string } | undefined): Logger {
  if (!spanContext) return logger.child(bindings);
  const child = logger.child({ ...bindings, trace_id: spanContext.traceId, span_id: spanContext.spanId });
  return Object.assign(child, { [TRACE_BOUND]: true });
}

/**
 * Every line written inside a span carries its `trace_id` and `span_id` (nothing while tracing is
 * off: there is never an active span then).
 */
function traceFields(_object: object, _level: number, logger: Logger): Record<string, string> {
  if ((logger as Logger & { [TRACE_BOUND]?: boolean })[TRACE_BOUND]) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

/**
 * JSON logs, one line per event. Request and message bodies are never logged (they carry patient
 * data); the redaction below is a second line of defence for credentials that reach a log call.
 */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'password',
        '*.password',
        'refreshToken',
        '*.refreshToken',
        'accessToken',
        '*.accessToken',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
