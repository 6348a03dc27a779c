-- The W3C trace context (traceparent, tracestate) of the message that brought the event: every
-- attempt of its webhook, retries included, is a span in that trace (docs/architecture.md,
-- "Traces"). NULL while tracing is off.
ALTER TABLE delivery ADD COLUMN trace_context jsonb;
