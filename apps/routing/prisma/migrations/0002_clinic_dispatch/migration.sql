-- Fan-out of requests to the clinics (request.dispatched.v1), automatic answers and bed counts.

-- Whether routing answers for the clinic from its published bed counts (`clinic auto-answer`).
ALTER TABLE clinic ADD COLUMN auto_answer boolean NOT NULL DEFAULT false;

-- Dispatch messages already processed: a redelivery finds its id here and is only acknowledged.
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

-- The bed a Task holds (automatic acceptance) or has reserved (selection); gone once released.
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

-- What each clinic was sent and what routing did for it (spec: "clinics are notified"). No patient data.
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
