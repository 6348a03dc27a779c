-- The routing schema of release 1.0 (docs/compatibility.md): the baseline every later migration of
-- routing builds on, append-only. No patient data: the clinic registry, bed counts and holds, and
-- the notification log of ids, IKs, department keys, dates and routing's own automatic answers.

-- The participating clinics. `auto_answer`: routing answers for the clinic from its published bed
-- counts (`clinic auto-answer`).
CREATE TABLE clinic (
  ik          text PRIMARY KEY CHECK (ik ~ '^[0-9]{9}$'),
  name        text NOT NULL CHECK (name <> ''),
  departments text[] NOT NULL CHECK (cardinality(departments) > 0),
  auto_answer boolean NOT NULL DEFAULT false,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at  timestamptz(3) NOT NULL DEFAULT now()
);

-- Messages already processed: a redelivery finds its id here and is only acknowledged.
CREATE TABLE inbox_message (
  message_id   uuid PRIMARY KEY,
  message_type text NOT NULL,
  processed_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Automatic answers, committed with the bed holds they rest on; published by the outbox relay.
CREATE TABLE outbox_message (
  id          bigserial PRIMARY KEY,
  routing_key text NOT NULL,
  envelope    jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);

-- The latest request version applied to each Task: an older dispatch arriving late changes nothing.
CREATE TABLE routed_task (
  task_id            uuid PRIMARY KEY,
  request_identifier text NOT NULL,
  clinic_ik          text NOT NULL,
  version            integer NOT NULL CHECK (version > 0),
  updated_at         timestamptz(3) NOT NULL DEFAULT now()
);

-- Admissions a clinic offers through the service per department and admission date. `free_beds` is
-- the clinic's published count; `held` and `reserved` are the service's own bookings against it.
CREATE TABLE bed_capacity (
  clinic_ik       text NOT NULL REFERENCES clinic (ik),
  department_code text NOT NULL CHECK (department_code ~ '^[0-9]{4}$'),
  admission_date  date NOT NULL,
  free_beds       integer NOT NULL CHECK (free_beds >= 0),
  held            integer NOT NULL DEFAULT 0 CHECK (held >= 0),
  reserved        integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  updated_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_ik, department_code, admission_date)
);

-- The bed a Task holds (automatic acceptance) or has reserved (selection); gone once released. An
-- erasure finds a request's holds by its identifier.
CREATE TABLE bed_hold (
  task_id            uuid PRIMARY KEY,
  request_identifier text NOT NULL,
  clinic_ik          text NOT NULL,
  department_code    text NOT NULL,
  admission_date     date NOT NULL,
  state              text NOT NULL CHECK (state IN ('held', 'reserved')),
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at         timestamptz(3) NOT NULL DEFAULT now(),
  FOREIGN KEY (clinic_ik, department_code, admission_date) REFERENCES bed_capacity (clinic_ik, department_code, admission_date)
);
CREATE INDEX bed_hold_clinic_ik_department_code_admission_date_idx ON bed_hold (clinic_ik, department_code, admission_date);
CREATE INDEX bed_hold_request_identifier_idx ON bed_hold (request_identifier);

-- What each clinic was sent and what routing did for it (spec: "clinics are notified"). No patient
-- data; an erasure drops the department, the date and the note, and finds the lines by the request.
CREATE TABLE clinic_notification (
  id                 bigserial PRIMARY KEY,
  message_id         uuid NOT NULL,
  task_id            uuid NOT NULL,
  clinic_ik          text NOT NULL,
  request_identifier text NOT NULL,
  request_version    integer NOT NULL,
  change             text NOT NULL,
  action             text NOT NULL,
  department_code    text,
  admission_date     date,
  outcome            text NOT NULL,
  answer             text,
  note               text,
  created_at         timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX clinic_notification_message_id_task_id_key ON clinic_notification (message_id, task_id);
CREATE INDEX clinic_notification_clinic_ik_created_at_idx ON clinic_notification (clinic_ik, created_at);
CREATE INDEX clinic_notification_request_identifier_idx ON clinic_notification (request_identifier);

-- Requests intake erased (request.erased.v1, docs/data-protection.md). A dispatch of one of them
-- that arrives afterwards (delayed, redelivered, or overtaken by the erasure on the broker) is
-- ignored: routed_task alone cannot tell, as it only stops versions older than the one applied, and
-- knows nothing of a request never dispatched here.
CREATE TABLE request_erasure (
  request_identifier text PRIMARY KEY,
  erased_at          timestamptz(3) NOT NULL
);

-- Routing writes a batch with one statement and no locks held in between: each changed row is
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
