-- The auth schema of release 1.0 (docs/compatibility.md): the baseline every later migration of auth
-- builds on, append-only.

CREATE TABLE user_account (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username      text NOT NULL CHECK (username = lower(username)),
  password_hash text NOT NULL,
  role          text NOT NULL CHECK (role IN ('referrer', 'clinic')),
  ik_numbers    text[] NOT NULL CHECK (cardinality(ik_numbers) >= 1),
  fhir_base     text,
  disabled_at   timestamptz(3),
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  -- docs/decisions.md: a referrer has a registered FHIR base URL; a clinic user is bound to one IK number.
  CONSTRAINT user_account_referrer_has_fhir_base CHECK ((role = 'referrer') = (fhir_base IS NOT NULL)),
  CONSTRAINT user_account_clinic_has_one_ik CHECK (role <> 'clinic' OR cardinality(ik_numbers) = 1)
);
CREATE UNIQUE INDEX user_account_username_key ON user_account (username);

CREATE TABLE signing_key (
  kid         text PRIMARY KEY,
  private_jwk jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
