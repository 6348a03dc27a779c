-- Answer statistics (docs/architecture.md, "Answer statistics"): one narrow row per Task its clinic
-- answered, written in the transaction of the Task's first answer, so that a page view reads the
-- last 90 days from one index and never the Task history.

-- The department the Task's request asks for (the Fachabteilungsschlüssel of its latest version);
-- NULL for a Task stored before this migration, whose department is only in the sealed version.
ALTER TABLE clinic_task ADD COLUMN department_code text;

-- A Task's first answer by its clinic: seconds from the Task's sending (authored_on) to that answer.
-- A Task first answered by the service (an automatic answer) has no row, nor does a later answer.
-- No foreign key: the rows hold no patient data and outlive nothing the Task does not (erasure keeps
-- the Task's row), and a bulk load of history need not go through clinic_task.
CREATE TABLE answer_statistic (
  task_id         uuid PRIMARY KEY,
  clinic_ik       text NOT NULL,
  department_code text NOT NULL,
  answered_at     timestamptz(3) NOT NULL,
  seconds         integer NOT NULL CHECK (seconds >= 0),
  accepted        boolean NOT NULL
);

-- The 90-day query reads this index alone (an Index Only Scan): the window is its leading range,
-- the department an index condition, and the figures are its included columns.
CREATE INDEX answer_statistic_window_idx ON answer_statistic (answered_at, department_code, clinic_ik) INCLUDE (seconds, accepted);

-- No backfill: the first answer's time is only in the Task's sealed history and the department only
-- in the sealed version (docs/architecture.md, "Answer statistics"), neither readable by SQL.
