-- Intake processes of a release before 0017 write Tasks without referrer_party_id: during a rolling
-- update (docs/operations.md, "Deploying, and in which order") and after a rollback to them, since
-- the previous release writes to the new schema (docs/compatibility.md). NOT NULL would fail every
-- batch of theirs that creates a Task. The column may be NULL until the writing transaction commits,
-- and a deferred trigger fills it from the request then, when a request created by the same
-- statement can be read. This release's writers set it, so the trigger does not fire for them.
ALTER TABLE clinic_task ALTER COLUMN referrer_party_id DROP NOT NULL;

CREATE FUNCTION clinic_task_referrer_fill() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE clinic_task t SET referrer_party_id = r.referrer_party_id
    FROM admission_request r
   WHERE t.id = NEW.id AND r.id = t.request_id AND t.referrer_party_id IS NULL;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER clinic_task_referrer_fill AFTER INSERT ON clinic_task
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.referrer_party_id IS NULL)
  EXECUTE FUNCTION clinic_task_referrer_fill();
