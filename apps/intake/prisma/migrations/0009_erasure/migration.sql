-- Erasure (issue 14, docs/data-protection.md "Retention and erasure"): a request whose patient data
-- was erased keeps its row, its Tasks without notes and its audit trail (the tombstone: identifier,
-- dates, states); its versions, documents and the verdicts kept for their messages are gone. This
-- row says so, when and why, and how many versions and documents there were.
CREATE TABLE request_erasure (
  request_id uuid PRIMARY KEY REFERENCES admission_request (id),
  erased_at  timestamptz(3) NOT NULL,
  -- requested (the referrer asked) | retention (the retention period ended)
  reason     text NOT NULL,
  versions   integer NOT NULL,
  documents  integer NOT NULL
);

-- The request a processed message was about (from its verdict), so that an erasure finds the
-- verdicts kept for it: an answer's verdict holds the Task with the clinic's notes. Rows written
-- before this migration have none; their versions' and documents' messages are found by message id.
ALTER TABLE inbox_message ADD COLUMN request_identifier text;
CREATE INDEX inbox_message_request_identifier_idx ON inbox_message (request_identifier);
