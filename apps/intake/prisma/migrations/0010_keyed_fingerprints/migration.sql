-- Keyed fingerprints (docs/data-protection.md, "Encryption at rest"): intake recognises a bundle sent
-- again by the HMAC-SHA-256 of its canonical JSON under this key (`hmac-sha256:` and hex), no longer
-- by its plain SHA-256, which anyone with a copy of the schema could check a guessed bundle against.
-- The key is wrapped by the KEK like the data keys (libs/crypto FINGERPRINT_KEY_TABLE_SQL), made on
-- the first start and never replaced. Rows written before keep their plain hashes, which still
-- match, until `npm run admin -- intake reencrypt` replaces them.
CREATE TABLE fingerprint_key (
  id          uuid PRIMARY KEY,
  wrapped_key bytea NOT NULL,
  kek_id      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  single      boolean NOT NULL DEFAULT true UNIQUE CHECK (single)
);
