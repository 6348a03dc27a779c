-- Parties and the people inside them (docs/parties.md, "Parties and people"). Every user of release
-- 1.0 becomes the one user of a party that takes its id, so that the `sub` of its tokens and every
-- party id intake and the notifier stored keep naming the same party.
CREATE TABLE party (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  role          text NOT NULL CHECK (role IN ('referrer', 'clinic')),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  contact_email text CHECK (contact_email IS NULL OR char_length(contact_email) BETWEEN 3 AND 254),
  ik_numbers    text[] NOT NULL CHECK (cardinality(ik_numbers) >= 1),
  fhir_base     text,
  disabled_at   timestamptz(3),
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  -- docs/decisions.md: a referrer has a registered FHIR base URL; a clinic is bound to one IK number.
  CONSTRAINT party_referrer_has_fhir_base CHECK ((role = 'referrer') = (fhir_base IS NOT NULL)),
  CONSTRAINT party_clinic_has_one_ik CHECK (role <> 'clinic' OR cardinality(ik_numbers) = 1)
);
INSERT INTO party (id, role, name, ik_numbers, fhir_base, disabled_at, created_at, updated_at)
  SELECT id, role, username, ik_numbers, fhir_base, disabled_at, created_at, updated_at FROM user_account;

ALTER TABLE user_account
  ADD COLUMN party_id uuid REFERENCES party (id),
  ADD COLUMN display_name text,
  ADD COLUMN email text CHECK (email IS NULL OR char_length(email) BETWEEN 3 AND 254),
  ADD COLUMN administrator boolean NOT NULL DEFAULT false;
UPDATE user_account SET party_id = id, display_name = username;
ALTER TABLE user_account
  ALTER COLUMN party_id SET NOT NULL,
  ALTER COLUMN display_name SET NOT NULL,
  ADD CONSTRAINT user_account_display_name_length CHECK (char_length(display_name) BETWEEN 1 AND 200);
CREATE INDEX user_account_party_id_idx ON user_account (party_id);

-- role, ik_numbers and fhir_base belong to the party now. They stay, nullable, for auth 1.0 processes
-- still running during the rollout (docs/compatibility.md, "1.1"): written only for the user whose id
-- is its party's (the party of one), never read. Their CHECKs pass NULL, so they stay too.
ALTER TABLE user_account ALTER COLUMN role DROP NOT NULL, ALTER COLUMN ik_numbers DROP NOT NULL;
