-- The notifier schema of release 1.0 (docs/compatibility.md): the baseline every later migration of
-- the notifier builds on, append-only. The webhook secret and each event's Task (it may hold notes
-- about the patient) are stored sealed (libs/crypto, docs/data-protection.md).

-- Messages already processed: a redelivered message finds its id here and is only acknowledged.
CREATE TABLE inbox_message (
  message_id   uuid PRIMARY KEY,
  message_type text NOT NULL,
  processed_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX inbox_message_processed_at_idx ON inbox_message (processed_at);

-- A referring party's webhook address for one event type, with its signing secret, sealed.
CREATE TABLE subscription (
  id              uuid PRIMARY KEY,
  party_id        text NOT NULL,
  event_type      text NOT NULL,
  callback_url    text NOT NULL,
  sealed_secret   bytea NOT NULL,
  status          text NOT NULL,
  disabled_reason text,
  last_sequence   integer NOT NULL DEFAULT 0,
  failing_since   timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX subscription_party_id_event_type_key ON subscription (party_id, event_type);

-- One event on its way to one subscription: the event (its Task sealed) and the state of its delivery.
CREATE TABLE delivery (
  event_id           uuid PRIMARY KEY,
  subscription_id    uuid NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
  sequence           integer NOT NULL,
  event_type         text NOT NULL,
  request_identifier text NOT NULL,
  occurred_at        timestamptz(3) NOT NULL,
  sealed_data        bytea NOT NULL,
  status             text NOT NULL,
  attempt_count      integer NOT NULL DEFAULT 0,
  next_attempt_at    timestamptz(3),
  leased_until       timestamptz(3),
  lease_token        uuid,
  delivered_at       timestamptz(3),
  created_at         timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX delivery_subscription_id_sequence_key ON delivery (subscription_id, sequence);
-- The claim's order rule asks, for every due delivery, whether an earlier event of the same request
-- is still pending. With `status` in the key that look-up reads only the request's pending rows
-- instead of walking past its delivered and given-up history (kept for WEBHOOK_EVENT_RETENTION).
CREATE INDEX delivery_pending_by_request_idx ON delivery (status, subscription_id, request_identifier, occurred_at, sequence);
CREATE INDEX delivery_status_next_attempt_at_idx ON delivery (status, next_attempt_at);
CREATE INDEX delivery_created_at_idx ON delivery (created_at);
-- Every delivery is inserted pending and updated once or more: its old versions stay in the
-- pending-by-due-time index until VACUUM, and the worker's claim reads past them (measured: 4,800
-- buffers per claim after a few minutes at 200 events/s). Vacuum this table once 5,000 rows have
-- died, not 20 % of the table (PostgreSQL's default, which grows with the retention), and without
-- the cost-based pauses: it is small and hot.
ALTER TABLE delivery SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000, autovacuum_vacuum_cost_delay = 0);

-- One HTTP attempt of a delivery.
CREATE TABLE delivery_attempt (
  id           bigserial PRIMARY KEY,
  event_id     uuid NOT NULL REFERENCES delivery (event_id) ON DELETE CASCADE,
  attempted_at timestamptz(3) NOT NULL,
  status_code  integer,
  error        text,
  duration_ms  integer NOT NULL
);
CREATE INDEX delivery_attempt_event_id_attempted_at_idx ON delivery_attempt (event_id, attempted_at);

-- The key tables of libs/crypto: data keys wrapped by the key-encryption key from DATA_KEK, and
-- outside production the generated development KEK.
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

-- Requests whose patient data intake erased (request.erased.v1, docs/data-protection.md), per
-- referrer, written in the erasure's transaction. Identifiers and the time only. With it the
-- notifier refuses to send one of their events again (a manual retry answers 409) and keeps no event
-- of theirs that arrives after the erasure (a redelivered or late admission.response).
CREATE TABLE request_erasure (
  request_identifier text NOT NULL,
  party_id           text NOT NULL,
  erased_at          timestamptz(3) NOT NULL,
  PRIMARY KEY (request_identifier, party_id)
);

-- Whether the referrer's request was erased, read in a snapshot of its own: a VOLATILE function's
-- statements each take a fresh one under READ COMMITTED, while the statement that calls it reads in
-- the snapshot it began with. The event store asks it once it holds the subscription's row lock: an
-- erasure, which takes that lock before it writes its mark, has then either committed (its mark is
-- seen here) or not taken the lock yet (it waits for the batch and then finds its events stored).
CREATE FUNCTION request_erased(referrer text, request text) RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM request_erasure WHERE request_identifier = request AND party_id = referrer);
END $$;
