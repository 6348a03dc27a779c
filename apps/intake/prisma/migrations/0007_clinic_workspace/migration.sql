-- What a clinic's people share about a Task beside the Task (docs/api.md, "Working on a request
-- together"), never sent to the referrer. One row per Task once someone of the clinic opened it or
-- took it: the latest version opened (the Task is new to the clinic while its sent_version is
-- higher) and who works on it, their user id (act.sub) and display name, and since when.
CREATE TABLE clinic_task_workspace (
  task_id        uuid PRIMARY KEY REFERENCES clinic_task (id),
  seen_version   integer NOT NULL DEFAULT 0,
  assignee_user  text,
  assignee_name  text,
  assigned_at    timestamptz(3)
);

-- The clinic's internal notes on a Task, oldest first: each sealed for
-- clinic_internal_note:note:<id> ({text, user, name?}: the text may describe the patient,
-- docs/data-protection.md), deleted with the request's patient data.
CREATE TABLE clinic_internal_note (
  id          uuid PRIMARY KEY,
  task_id     uuid NOT NULL REFERENCES clinic_task (id),
  sealed_note bytea NOT NULL,
  created_at  timestamptz(3) NOT NULL
);
CREATE INDEX clinic_internal_note_task_id_created_at_idx ON clinic_internal_note (task_id, created_at);
