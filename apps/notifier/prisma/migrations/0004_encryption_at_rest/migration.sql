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

-- The webhook secret and each event's Task (it may hold notes about the patient) are sealed from
-- now on, in new columns. Rows written before keep their values in clear in the old columns, which
-- are read until `npm run admin -- notifier reencrypt` has sealed them (events also go with the
-- retention, 7 days by default); a later migration drops those columns. A row holds one or the other.
ALTER TABLE subscription ADD COLUMN sealed_secret bytea, ALTER COLUMN secret DROP NOT NULL;
ALTER TABLE subscription ADD CONSTRAINT subscription_secret_kept CHECK ((secret IS NULL) <> (sealed_secret IS NULL));
ALTER TABLE delivery ADD COLUMN sealed_data bytea, ALTER COLUMN data DROP NOT NULL;
ALTER TABLE delivery ADD CONSTRAINT delivery_data_kept CHECK ((data IS NULL) <> (sealed_data IS NULL));
