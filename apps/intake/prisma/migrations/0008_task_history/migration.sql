-- A Task's history for its clinic (docs/api.md, "Clinic API", the history): every answer with its
-- time, code and who gave it (the note stays in sealed_notes, the answer names it by position), every
-- delivery of documents and every change of the request that reached the Task, oldest first, the
-- newest 300 kept. Sealed for clinic_task:history:<id> (an author's name is the clinic's staff, a
-- document's kind may describe the patient: docs/data-protection.md); none once the request is
-- erased, and none for a Task whose history began before this migration (its notes stand alone).
ALTER TABLE clinic_task ADD COLUMN sealed_history bytea;

-- When documents reopened the Task for an answer after the clinic asked for more data
-- (docs/decisions.md, "Requests"); cleared by its next answer or its cancellation.
ALTER TABLE clinic_task ADD COLUMN documents_supplied_at timestamptz(3);
