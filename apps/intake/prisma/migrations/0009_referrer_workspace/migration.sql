-- The hospital's own data about its requests (docs/api.md, "The hospital's own data: case numbers
-- and drafts"), kept beside them and never sent to a clinic.

-- A referrer party's case number ("Fallnummer") of a request, keyed by the party and the request's
-- identifier rather than by the request row: the hospital sets it before intake has stored the
-- bundle (whose 202 is answered before that). Sealed for referrer_case_number:case_number:<id>
-- ({caseNumber, user, name?}: the number names a patient's stay, docs/data-protection.md), found by
-- case_number_digest, `hmac-sha256:` over the party and the number in lower case under intake's
-- fingerprint key. Deleted with the request's patient data.
CREATE TABLE referrer_case_number (
  id                 uuid PRIMARY KEY,
  referrer_party_id  text NOT NULL,
  identifier         text NOT NULL,
  sealed_case_number bytea NOT NULL,
  case_number_digest text NOT NULL,
  updated_at         timestamptz(3) NOT NULL
);
CREATE UNIQUE INDEX referrer_case_number_referrer_party_id_identifier_key ON referrer_case_number (referrer_party_id, identifier);
CREATE INDEX referrer_case_number_referrer_party_id_case_number_digest_idx ON referrer_case_number (referrer_party_id, case_number_digest);

-- A referrer party's drafts of new requests, whose content its web app owns: the label with who
-- saved it last ({label?, user, name?}, sealed for referrer_draft:label:<id>) apart from the
-- content (sealed for referrer_draft:content:<id>), so that the list opens the small values only.
-- Deleted REFERRER_DRAFT_RETENTION_DAYS after their last save by the retention job.
CREATE TABLE referrer_draft (
  id                uuid PRIMARY KEY,
  referrer_party_id text NOT NULL,
  sealed_label      bytea NOT NULL,
  sealed_content    bytea NOT NULL,
  saved_at          timestamptz(3) NOT NULL
);
CREATE INDEX referrer_draft_referrer_party_id_saved_at_idx ON referrer_draft (referrer_party_id, saved_at);
CREATE INDEX referrer_draft_saved_at_idx ON referrer_draft (saved_at);
