-- Intake writes a batch with one statement and no locks held in between: each changed row is
-- written only if it is still as the batch read it (the request's current_version, the Task's
-- revision). `revision` counts every change of a Task.
ALTER TABLE clinic_task ADD COLUMN revision integer NOT NULL DEFAULT 0;

-- Fails the statement (SQLSTATE 40001, serialization_failure: the batch is tried again) when a
-- guarded write found fewer rows than it expected, that is, when another transaction changed them
-- after the batch read them.
CREATE FUNCTION expect_rows(expected bigint, actual bigint, what text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF expected <> actual THEN
    RAISE EXCEPTION 'concurrent change: % (% of % rows as read)', what, actual, expected USING ERRCODE = '40001';
  END IF;
  RETURN true;
END $$;
