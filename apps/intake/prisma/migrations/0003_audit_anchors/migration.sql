-- The anchors of the audit trail (issue 26): anyone who may write to this database could rewrite a
-- day's chain and recompute every hash after an edit. So once a UTC day has ended, intake records
-- its chain's head (the last entry's seq and hash) with an HMAC-SHA256 over it under a key derived
-- from the key-encryption key (DATA_KEK, from the environment, never in the database), and
-- `npm run admin -- audit verify` checks the head against it. An anchor is append-only like the
-- entries; a missing one is reported for every day that ended more than a day ago.
CREATE TABLE audit_anchors (
  day       date        NOT NULL,
  head_seq  integer     NOT NULL,
  head_hash text        NOT NULL,
  -- The KEK the key was derived from (DATA_KEK_ID): the anchor verifies as long as that KEK is held.
  kek_id    text        NOT NULL,
  mac       text        NOT NULL,
  anchored  timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT audit_anchors_pkey PRIMARY KEY (day)
);

CREATE FUNCTION refuse_audit_anchor_change() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_anchors is append-only: % refused', TG_OP USING ERRCODE = '42501';
END $$;
CREATE TRIGGER audit_anchors_append_only BEFORE UPDATE OR DELETE ON audit_anchors
  FOR EACH ROW EXECUTE FUNCTION refuse_audit_anchor_change();
CREATE TRIGGER audit_anchors_no_truncate BEFORE TRUNCATE ON audit_anchors
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_anchor_change();
