-- Answer deadlines (docs/api.md, "Answer deadlines"): by when the referrer needs the clinics'
-- answers, set by the request's bundle or the party's default, and the overdue mark of a Task whose
-- clinic has not answered by then. None for a request stored before this migration.

-- The request's deadline, which every Task of it carries (restriction.period.end).
ALTER TABLE admission_request ADD COLUMN answer_deadline timestamptz(3);

-- The Task's copy of it, so that the overdue sweep reads one table; when the sweep marked the Task
-- overdue (cleared by an answer or a deadline moved into the future); and the deadline the last
-- AdmissionOverdueV1 was published for, so that it is published once per Task and deadline.
ALTER TABLE clinic_task ADD COLUMN answer_deadline timestamptz(3);
ALTER TABLE clinic_task ADD COLUMN overdue_at timestamptz(3);
ALTER TABLE clinic_task ADD COLUMN overdue_deadline timestamptz(3);

-- The sweep's look-up: the Tasks waiting for their clinic, not yet marked, by deadline.
CREATE INDEX clinic_task_answer_deadline_idx ON clinic_task (answer_deadline)
  WHERE status = 'requested' AND overdue_at IS NULL AND answer_deadline IS NOT NULL;
-- The overdue ones (`overdue=true`): few at any time.
CREATE INDEX clinic_task_overdue_at_idx ON clinic_task (overdue_at) WHERE overdue_at IS NOT NULL;

-- A referrer party's settings: its default answer deadline, working days after receipt in
-- Europe/Berlin and whose public holidays (`DE` or `DE-BW` …) are no working days. A party without a
-- row has the service's default (ANSWER_DEADLINE_WORKING_DAYS, ANSWER_DEADLINE_HOLIDAYS).
CREATE TABLE referrer_settings (
  referrer_party_id            text PRIMARY KEY,
  answer_deadline_working_days integer NOT NULL,
  answer_deadline_holidays     text NOT NULL,
  updated_at                   timestamptz(3) NOT NULL
);
