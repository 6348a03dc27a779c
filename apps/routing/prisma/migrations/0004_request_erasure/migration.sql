-- Erasure of a request's patient data (intake's request.erased.v1, docs/data-protection.md).

-- Requests intake erased. A dispatch of one of them that arrives afterwards (delayed, redelivered,
-- or overtaken by the erasure on the broker) is ignored: routed_task alone cannot tell, as it only
-- stops versions older than the one applied, and knows nothing of a request never dispatched here.
CREATE TABLE request_erasure (
  request_identifier text PRIMARY KEY,
  erased_at          timestamptz(3) NOT NULL
);

-- An erasure finds the request's holds and notification log lines by its identifier.
CREATE INDEX bed_hold_request_identifier_idx ON bed_hold (request_identifier);
CREATE INDEX clinic_notification_request_identifier_idx ON clinic_notification (request_identifier);
