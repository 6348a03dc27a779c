-- The audit trail (issue 14): one FHIR R4 AuditEvent per read of patient data and per change, kept
-- append-only and tamper-evident. The entries of one UTC day form a hash chain: an entry's `hash` is
-- SHA-256 over the canonical JSON of the entry ({"ownerPartyId", "resource"} with sorted keys, as
-- intake writes it) followed by the `previous_hash` of the entry before it (64 zeros for the day's
-- first), so an edited, inserted or removed entry breaks the chain from there on
-- (`npm run admin -- audit verify`). The other columns are what the AuditEvent search filters on,
-- copied from the resource; the verification checks that they still agree with it.
CREATE TABLE audit_events (
  day                date         NOT NULL,
  seq                integer      NOT NULL,
  id                 uuid         NOT NULL,
  recorded           timestamptz(3) NOT NULL,
  request_identifier text         NOT NULL,
  -- The referrer that owns the request: it sees every entry about it.
  owner_party_id     text         NOT NULL,
  agent_user         text,
  -- The agent's IK: a clinic sees the entries of its own access.
  agent_ik           text,
  resource           jsonb        NOT NULL,
  previous_hash      text         NOT NULL,
  hash               text         NOT NULL,
  CONSTRAINT audit_events_pkey PRIMARY KEY (day, seq)
);
CREATE UNIQUE INDEX audit_events_id_key ON audit_events (id);
CREATE INDEX audit_events_owner_party_id_recorded_idx ON audit_events (owner_party_id, recorded);
CREATE INDEX audit_events_agent_ik_recorded_idx ON audit_events (agent_ik, recorded);
CREATE INDEX audit_events_request_identifier_recorded_idx ON audit_events (request_identifier, recorded);

-- Append-only: UPDATE, DELETE and TRUNCATE are refused for everyone, the service's own role
-- included. (A superuser can switch the trigger off; the hash chain is what shows such an edit.)
CREATE FUNCTION refuse_audit_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = '42501';
END $$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION refuse_audit_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_change();

-- Appends entries to their days' chains, in the order given: `entries` is a JSON array of
-- {id, recorded, request_identifier, owner_party_id, agent_user, agent_ik, canonical}, `canonical`
-- the entry's canonical JSON (what is hashed; the stored resource is read from it). Writers of one
-- day are serialised by a transaction-level advisory lock per (schema, day), taken for the days in
-- ascending order (two appends spanning midnight take them in the same order), so each chain stays
-- one line however many intake processes write. The lock is held until the caller's transaction
-- ends: callers append last, after every other write of the transaction, so that they wait for no
-- other lock while holding it. The day's head is read after the lock is granted, in a fresh
-- snapshot (a VOLATILE function's statements each take one under READ COMMITTED); the primary key
-- (day, seq) refuses a fork should that ever not hold.
CREATE FUNCTION append_audit_events(entries jsonb) RETURNS integer
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  entry record;
  chain_day date;
  head_day date;
  head_seq integer;
  head_hash text;
  next_hash text;
  appended integer := 0;
BEGIN
  IF entries IS NULL OR jsonb_array_length(entries) = 0 THEN
    RETURN 0;
  END IF;
  FOR chain_day IN
    SELECT DISTINCT (x.recorded AT TIME ZONE 'UTC')::date FROM jsonb_to_recordset(entries) AS x(recorded timestamptz) ORDER BY 1
  LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('bedrequest-audit-chain:' || current_schema() || ':' || chain_day::text, 0));
  END LOOP;
  FOR entry IN
    SELECT x.*, (x.recorded AT TIME ZONE 'UTC')::date AS day
      FROM ROWS FROM (jsonb_to_recordset(entries) AS (id uuid, recorded timestamptz, request_identifier text, owner_party_id text,
                      agent_user text, agent_ik text, canonical text))
           WITH ORDINALITY AS x(id, recorded, request_identifier, owner_party_id, agent_user, agent_ik, canonical, n)
     ORDER BY x.n
  LOOP
    IF head_day IS DISTINCT FROM entry.day THEN
      head_day := entry.day;
      SELECT a.seq, a.hash INTO head_seq, head_hash FROM audit_events a WHERE a.day = entry.day ORDER BY a.seq DESC LIMIT 1;
      IF NOT FOUND THEN
        head_seq := 0;
        head_hash := repeat('0', 64);
      END IF;
    END IF;
    next_hash := encode(sha256(convert_to(entry.canonical || head_hash, 'UTF8')), 'hex');
    INSERT INTO audit_events (day, seq, id, recorded, request_identifier, owner_party_id, agent_user, agent_ik, resource, previous_hash, hash)
    VALUES (entry.day, head_seq + 1, entry.id, entry.recorded, entry.request_identifier, entry.owner_party_id, entry.agent_user, entry.agent_ik,
            (entry.canonical::jsonb) -> 'resource', head_hash, next_hash);
    head_seq := head_seq + 1;
    head_hash := next_hash;
    appended := appended + 1;
  END LOOP;
  RETURN appended;
END $$;
