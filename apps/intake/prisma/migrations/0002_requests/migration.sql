ALTER TABLE inbox_message ADD COLUMN verdict jsonb;

CREATE TABLE admission_request (
  id                 uuid PRIMARY KEY,
  identifier         text NOT NULL,
  referrer_party_id  text NOT NULL,
  referrer_ik        text NOT NULL,
  status             text NOT NULL,
  intent             text NOT NULL,
  selected_clinic_ik text,
  current_version    integer NOT NULL,
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at         timestamptz(3) NOT NULL
);
CREATE UNIQUE INDEX admission_request_identifier_key ON admission_request (identifier);
CREATE INDEX admission_request_referrer_party_id_idx ON admission_request (referrer_party_id);

CREATE TABLE request_version (
  request_id     uuid NOT NULL REFERENCES admission_request (id),
  version        integer NOT NULL,
  bundle         jsonb NOT NULL,
  canonical_hash text NOT NULL,
  message_id     uuid NOT NULL,
  received_at    timestamptz(3) NOT NULL,
  PRIMARY KEY (request_id, version)
);

CREATE TABLE clinic_task (
  id              uuid PRIMARY KEY,
  request_id      uuid NOT NULL REFERENCES admission_request (id),
  clinic_ik       text NOT NULL,
  status          text NOT NULL,
  business_status text,
  notes           jsonb NOT NULL DEFAULT '[]',
  sent_version    integer NOT NULL,
  authored_on     timestamptz(3) NOT NULL,
  last_modified   timestamptz(3) NOT NULL
);
CREATE UNIQUE INDEX clinic_task_request_id_clinic_ik_key ON clinic_task (request_id, clinic_ik);
CREATE INDEX clinic_task_clinic_ik_last_modified_idx ON clinic_task (clinic_ik, last_modified);
CREATE INDEX clinic_task_last_modified_idx ON clinic_task (last_modified);

CREATE TABLE request_document (
  id          uuid PRIMARY KEY,
  request_id  uuid NOT NULL REFERENCES admission_request (id),
  bundle      jsonb NOT NULL,
  message_id  uuid NOT NULL,
  received_at timestamptz(3) NOT NULL
);
CREATE INDEX request_document_request_id_idx ON request_document (request_id);

CREATE TABLE outbox_message (
  id          bigserial PRIMARY KEY,
  routing_key text NOT NULL,
  envelope    jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
