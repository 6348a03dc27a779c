-- The W3C trace context (traceparent, tracestate) of the request whose change wrote the message,
-- so that the relay's publish continues that request's trace however much later it runs
-- (docs/architecture.md, "Traces"). NULL while tracing is off.
ALTER TABLE outbox_message ADD COLUMN trace_context jsonb;
