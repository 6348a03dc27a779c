CREATE TABLE inbox_message (
  message_id   uuid PRIMARY KEY,
  message_type text NOT NULL,
  processed_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX inbox_message_processed_at_idx ON inbox_message (processed_at);

CREATE TABLE subscription (
  id              uuid PRIMARY KEY,
  party_id        text NOT NULL,
  event_type      text NOT NULL,
  callback_url    text NOT NULL,
  secret          text NOT NULL,
  status          text NOT NULL,
  disabled_reason text,
  last_sequence   integer NOT NULL DEFAULT 0,
  failing_since   timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX subscription_party_id_event_type_key ON subscription (party_id, event_type);

CREATE TABLE delivery (
  event_id           uuid PRIMARY KEY,
  subscription_id    uuid NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
  sequence           integer NOT NULL,
  event_type         text NOT NULL,
  request_identifier text NOT NULL,
  occurred_at        timestamptz(3) NOT NULL,
  data               jsonb NOT NULL,
  status             text NOT NULL,
  attempt_count      integer NOT NULL DEFAULT 0,
  next_attempt_at    timestamptz(3),
  leased_until       timestamptz(3),
  lease_token        uuid,
  delivered_at       timestamptz(3),
  created_at         timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX delivery_subscription_id_sequence_key ON delivery (subscription_id, sequence);
CREATE INDEX delivery_subscription_id_request_identifier_occurred_at_idx ON delivery (subscription_id, request_identifier, occurred_at);
CREATE INDEX delivery_status_next_attempt_at_idx ON delivery (status, next_attempt_at);
CREATE INDEX delivery_created_at_idx ON delivery (created_at);

CREATE TABLE delivery_attempt (
  id           bigserial PRIMARY KEY,
  event_id     uuid NOT NULL REFERENCES delivery (event_id) ON DELETE CASCADE,
  attempted_at timestamptz(3) NOT NULL,
  status_code  integer,
  error        text,
  duration_ms  integer NOT NULL
);
CREATE INDEX delivery_attempt_event_id_attempted_at_idx ON delivery_attempt (event_id, attempted_at);
