-- E-mail to the people of a party who asked for it (docs/operations.md, "E-mail"). One row per
-- mail, at most one per kind, Task and occasion (the request version a clinic was asked for, the
-- deadline it is reminded of or passed, the answer's event id): the unique key makes writing it twice
-- a no-op. No address and no patient data: whom to write to is asked from auth when it is sent.
CREATE TABLE mail_outbox (
  id                bigserial PRIMARY KEY,
  kind              text NOT NULL CHECK (kind IN ('answer-requested', 'reminder', 'answer', 'overdue')),
  task_id           uuid NOT NULL,
  occasion          text NOT NULL,
  -- The clinic's people (answer-requested, reminder) or the referrer party's (answer, overdue).
  clinic_ik         text,
  referrer_party_id text,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  next_attempt_at   timestamptz(3) NOT NULL DEFAULT now(),
  attempts          integer NOT NULL DEFAULT 0,
  -- Set with its outcome once nothing more is to be done: sent, no-recipients, obsolete, given-up.
  done_at           timestamptz(3),
  outcome           text,
  CONSTRAINT mail_outbox_recipient_check CHECK ((clinic_ik IS NULL) <> (referrer_party_id IS NULL)),
  CONSTRAINT mail_outbox_once_key UNIQUE (kind, task_id, occasion)
);

-- The sender's look-up: what is due, oldest first.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE done_at IS NULL;

-- The mail an event causes, written by the transaction that writes the event to outbox_message,
-- whichever code path that is: a clinic asked (request.dispatched.v1, answer-requested, not declined
-- at once), an answer of the clinic's own or an acceptance from its bed counts (admission.response.v1;
-- an automatic decline, for a clinic not participating, without the department or without a free
-- bed by its counts, is no news worth a mail), a clinic overdue (admission.overdue.v1). The envelope is the message as published
-- (libs/contracts); `search_path` is this schema's, as at migration time.
CREATE FUNCTION mail_from_outbox() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  payload jsonb := NEW.envelope -> 'payload';
BEGIN
  IF NEW.routing_key = 'request.dispatched.v1' THEN
    INSERT INTO mail_outbox (kind, task_id, occasion, clinic_ik)
    SELECT 'answer-requested', (task ->> 'taskId')::uuid, payload ->> 'version', task ->> 'clinicIk'
      FROM jsonb_array_elements(payload -> 'tasks') AS task
     WHERE task ->> 'action' = 'answer-requested' AND task ->> 'declined' IS NULL
    ON CONFLICT ON CONSTRAINT mail_outbox_once_key DO NOTHING;
  ELSIF NEW.routing_key = 'admission.response.v1'
    AND (payload ->> 'source' = 'clinic' OR payload -> 'task' -> 'businessStatus' -> 'coding' -> 0 ->> 'code' IS DISTINCT FROM 'declined') THEN
    INSERT INTO mail_outbox (kind, task_id, occasion, referrer_party_id)
    VALUES ('answer', (payload -> 'task' ->> 'id')::uuid, payload ->> 'eventId', payload ->> 'referrerPartyId')
    ON CONFLICT ON CONSTRAINT mail_outbox_once_key DO NOTHING;
  ELSIF NEW.routing_key = 'admission.overdue.v1' THEN
    INSERT INTO mail_outbox (kind, task_id, occasion, referrer_party_id)
    VALUES ('overdue', (payload -> 'task' ->> 'id')::uuid, payload ->> 'deadline', payload ->> 'referrerPartyId')
    ON CONFLICT ON CONSTRAINT mail_outbox_once_key DO NOTHING;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER outbox_message_mail AFTER INSERT ON outbox_message FOR EACH ROW EXECUTE FUNCTION mail_from_outbox();
