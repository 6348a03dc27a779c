-- Encryption at rest (libs/crypto, docs/data-protection.md). The key tables: data keys wrapped by
-- the key-encryption key from DATA_KEK, and outside production the generated development KEK.
CREATE TABLE data_key (
  id          uuid PRIMARY KEY,
  wrapped_key bytea NOT NULL,
  kek_id      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE development_kek (
  id         text PRIMARY KEY,
  key        bytea NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

-- What describes the patient is sealed from now on, in new columns: the bundle versions (with the
-- clinic list's summary of each, which the list can no longer read out of the bundle in SQL), the
-- documents, the clinic's notes of a Task, and the verdicts kept for redeliveries (an answer's verdict
-- carries the Task with its notes). Rows written before keep their values in clear in the old
-- columns, which are read until `npm run admin -- intake reencrypt` has sealed them; a later
-- migration drops those columns. A row holds one or the other.
ALTER TABLE request_version ADD COLUMN sealed_bundle bytea, ADD COLUMN sealed_summary bytea, ALTER COLUMN bundle DROP NOT NULL;
ALTER TABLE request_version ADD CONSTRAINT request_version_bundle_kept CHECK ((bundle IS NULL) <> (sealed_bundle IS NULL));
ALTER TABLE request_document ADD COLUMN sealed_bundle bytea, ALTER COLUMN bundle DROP NOT NULL;
ALTER TABLE request_document ADD CONSTRAINT request_document_bundle_kept CHECK ((bundle IS NULL) <> (sealed_bundle IS NULL));
ALTER TABLE clinic_task ADD COLUMN sealed_notes bytea, ALTER COLUMN notes DROP NOT NULL, ALTER COLUMN notes DROP DEFAULT;
-- A Task inserted without notes (tests, the benchmark's fixtures) has none: neither column holds them.
ALTER TABLE clinic_task ADD CONSTRAINT clinic_task_notes_kept CHECK (notes IS NULL OR sealed_notes IS NULL);
-- A verdict may be absent (a message refused before it was read): then neither column holds one.
ALTER TABLE inbox_message ADD COLUMN sealed_verdict bytea;
ALTER TABLE inbox_message ADD CONSTRAINT inbox_message_verdict_kept CHECK (verdict IS NULL OR sealed_verdict IS NULL);
