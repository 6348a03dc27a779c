-- The record for the payer (docs/api.md, "The record for the payer").

-- The service's own Ed25519 keys that sign the records, rotated like the token keys
-- (docs/operations.md, "Record signing keys"): the newest row signs, every row's public key
-- verifies, for as long as a record signed with it may be shown to a payer. The private key (a JWK)
-- is sealed with intake's data keys for record_signing_key:private_key:<id>; kid is the RFC 7638
-- thumbprint of the public key.
CREATE TABLE record_signing_key (
  id                 uuid PRIMARY KEY,
  kid                text NOT NULL UNIQUE,
  public_x           text NOT NULL,
  sealed_private_key bytea NOT NULL,
  created_at         timestamptz(3) NOT NULL
);
CREATE INDEX record_signing_key_created_at_idx ON record_signing_key (created_at);

-- When the hospital declared the patient ready for transfer, with its own data (keyed like
-- referrer_case_number by party and request identifier): {readyAt, user, name?} sealed for
-- referrer_ready_for_transfer:ready:<id>. Deleted with the request's patient data.
CREATE TABLE referrer_ready_for_transfer (
  id                uuid PRIMARY KEY,
  referrer_party_id text NOT NULL,
  identifier        text NOT NULL,
  sealed_ready      bytea NOT NULL,
  updated_at        timestamptz(3) NOT NULL
);
CREATE UNIQUE INDEX referrer_ready_for_transfer_party_identifier_key ON referrer_ready_for_transfer (referrer_party_id, identifier);
