-- The intake schema of release 1.0 (docs/compatibility.md): the baseline every later migration of
-- intake builds on, append-only. What describes the patient is stored sealed (libs/crypto,
-- docs/data-protection.md); identifiers, IKs, states, dates and versions stay in clear, since the
-- statements search, join and order by them.

-- Messages already processed, with the verdict given: a redelivered message finds its id here, gets
-- the same answer, and is only acknowledged. The verdict is sealed (an answer's carries the Task with
-- its notes); `request_identifier`, the request the message was about (from its verdict), lets an
-- erasure find the verdicts kept for it and clear them.
CREATE TABLE inbox_message (
  message_id         uuid PRIMARY KEY,
  message_type       text NOT NULL,
  processed_at       timestamptz(3) NOT NULL DEFAULT now(),
  sealed_verdict     bytea,
  request_identifier text
);
CREATE INDEX inbox_message_request_identifier_idx ON inbox_message (request_identifier);

-- One admission request, matched on ServiceRequest.identifier. `latest_hash` is the fingerprint of
-- its latest version's bundle: the state machine compares every incoming bundle with it (an
-- identical bundle is a retry) without reading request_version.
CREATE TABLE admission_request (
  id                 uuid PRIMARY KEY,
  identifier         text NOT NULL,
  referrer_party_id  text NOT NULL,
  referrer_ik        text NOT NULL,
  status             text NOT NULL,
  intent             text NOT NULL,
  selected_clinic_ik text,
  current_version    integer NOT NULL,
  latest_hash        text NOT NULL,
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at         timestamptz(3) NOT NULL
);
CREATE UNIQUE INDEX admission_request_identifier_key ON admission_request (identifier);
CREATE INDEX admission_request_referrer_party_id_idx ON admission_request (referrer_party_id);

-- Every accepted AdmissionRequestBundle of a request, sealed, with the clinic list's summary of it
-- (sealed too: the list cannot read it out of the bundle in SQL), and its fingerprint.
CREATE TABLE request_version (
  request_id     uuid NOT NULL REFERENCES admission_request (id),
  version        integer NOT NULL,
  sealed_bundle  bytea NOT NULL,
  sealed_summary bytea NOT NULL,
  canonical_hash text NOT NULL,
  message_id     uuid NOT NULL,
  received_at    timestamptz(3) NOT NULL,
  PRIMARY KEY (request_id, version)
);

-- The FHIR Task of one (request, requested clinic) pair. `revision` counts every change: a batch
-- writes a Task only if it is still the revision it read. `cancelled_at`: a cancelled clinic sees no
-- document received after that. The notes are sealed; none once the request is erased.
CREATE TABLE clinic_task (
  id              uuid PRIMARY KEY,
  request_id      uuid NOT NULL REFERENCES admission_request (id),
  clinic_ik       text NOT NULL,
  status          text NOT NULL,
  business_status text,
  sealed_notes    bytea,
  sent_version    integer NOT NULL,
  authored_on     timestamptz(3) NOT NULL,
  last_modified   timestamptz(3) NOT NULL,
  cancelled_at    timestamptz(3),
  revision        integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX clinic_task_request_id_clinic_ik_key ON clinic_task (request_id, clinic_ik);
CREATE INDEX clinic_task_clinic_ik_last_modified_idx ON clinic_task (clinic_ik, last_modified);
CREATE INDEX clinic_task_last_modified_idx ON clinic_task (last_modified);

-- A DocumentBundle sent for a request, sealed; a retransmission is recognised by its fingerprint.
CREATE TABLE request_document (
  id             uuid PRIMARY KEY,
  request_id     uuid NOT NULL REFERENCES admission_request (id),
  sealed_bundle  bytea NOT NULL,
  canonical_hash text NOT NULL,
  message_id     uuid NOT NULL,
  received_at    timestamptz(3) NOT NULL
);
CREATE INDEX request_document_request_id_idx ON request_document (request_id);
CREATE UNIQUE INDEX request_document_request_id_canonical_hash_key ON request_document (request_id, canonical_hash);

-- Erasure (docs/data-protection.md, "Retention and erasure"): a request whose patient data was
-- erased keeps its row, its Tasks without notes and its audit trail (the tombstone); its versions,
-- documents and the verdicts kept for its messages are gone. This row says so, when and why
-- (requested | retention), and how many versions and documents there were.
CREATE TABLE request_erasure (
  request_id uuid PRIMARY KEY REFERENCES admission_request (id),
  erased_at  timestamptz(3) NOT NULL,
  reason     text NOT NULL,
  versions   integer NOT NULL,
  documents  integer NOT NULL
);

-- Messages committed with the state change that caused them, published by the outbox relay.
CREATE TABLE outbox_message (
  id          bigserial PRIMARY KEY,
  routing_key text NOT NULL,
  envelope    jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);

-- The key tables of libs/crypto: data keys wrapped by the key-encryption key from DATA_KEK, the
-- fingerprint key (one row at most, wrapped like them, made on the first start and never replaced:
-- the bundles' fingerprints are HMACs under it), and outside production the generated development KEK.
CREATE TABLE data_key (
  id          uuid PRIMARY KEY,
  wrapped_key bytea NOT NULL,
  kek_id      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE fingerprint_key (
  id          uuid PRIMARY KEY,
  wrapped_key bytea NOT NULL,
  kek_id      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  single      boolean NOT NULL DEFAULT true UNIQUE CHECK (single)
);

CREATE TABLE development_kek (
  id         text PRIMARY KEY,
  key        bytea NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Intake writes a batch with one statement and no locks held in between: each changed row is
-- written only if it is still as the batch read it. This fails the statement (SQLSTATE 40001,
-- serialization_failure: the batch is tried again) when a guarded write found fewer rows than it
-- expected, that is, when another transaction changed them after the batch read them.
CREATE FUNCTION expect_rows(expected bigint, actual bigint, what text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF expected <> actual THEN
    RAISE EXCEPTION 'concurrent change: % (% of % rows as read)', what, actual, expected USING ERRCODE = '40001';
  END IF;
  RETURN true;
END $$;

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
