-- The claim's order rule asks, for every due delivery, whether an earlier event of the same request
-- is still pending. With `status` in the key that look-up reads only the request's pending rows
-- instead of walking past its delivered and given-up history (kept for WEBHOOK_EVENT_RETENTION).
DROP INDEX delivery_subscription_id_request_identifier_occurred_at_idx;
CREATE INDEX delivery_pending_by_request_idx ON delivery (status, subscription_id, request_identifier, occurred_at, sequence);
