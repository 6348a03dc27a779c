-- System clients (docs/parties.md, "System clients and scopes"): software of a party that gets access
-- tokens by OAuth 2.0 client credentials with a signed JWT (SMART Backend Services), registered with
-- `npm run admin -- client create`. Its public keys are either kept here (a JWKS) or fetched from
-- its jwks_url, never both.
CREATE TABLE system_client (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  party_id    uuid NOT NULL REFERENCES party (id),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  jwks        jsonb,
  jwks_url    text CHECK (jwks_url IS NULL OR char_length(jwks_url) BETWEEN 8 AND 2000),
  -- The scopes it may be granted; NULL: every catalogue scope of its party's role.
  scopes      text[] CHECK (scopes IS NULL OR cardinality(scopes) >= 1),
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  disabled_at timestamptz(3),
  CONSTRAINT system_client_one_key_source CHECK ((jwks IS NULL) <> (jwks_url IS NULL))
);
CREATE INDEX system_client_party_id_idx ON system_client (party_id);
-- The revocation list reads the clients disabled recently (GET /internal/revocations).
CREATE INDEX system_client_disabled_at_idx ON system_client (disabled_at);
