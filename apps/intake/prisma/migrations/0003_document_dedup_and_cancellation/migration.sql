-- A retransmitted DocumentBundle is recognised by its canonical hash (like admission bundles).
ALTER TABLE request_document ADD COLUMN canonical_hash text;
CREATE UNIQUE INDEX request_document_request_id_canonical_hash_key ON request_document (request_id, canonical_hash);

-- When a clinic's Task was cancelled: it sees no document received after that.
ALTER TABLE clinic_task ADD COLUMN cancelled_at timestamptz(3);
