-- Requests whose patient data intake erased (request.erased.v1, docs/data-protection.md), per
-- referrer, written in the erasure's transaction. Identifiers and the time only. With it the
-- notifier refuses to send one of their events again (a manual retry answers 409) and keeps no event
-- of theirs that arrives after the erasure (a redelivered or late admission.response).
CREATE TABLE request_erasure (
  request_identifier text NOT NULL,
  party_id           text NOT NULL,
  erased_at          timestamptz(3) NOT NULL,
  PRIMARY KEY (request_identifier, party_id)
);

-- Whether the referrer's request was erased, read in a snapshot of its own: a VOLATILE function's
-- statements each take a fresh one under READ COMMITTED, while the statement that calls it reads in
-- the snapshot it began with. The event store asks it once it holds the subscription's row lock: an
-- erasure, which takes that lock before it writes its mark, has then either committed (its mark is
-- seen here) or not taken the lock yet (it waits for the batch and then finds its events stored).
CREATE FUNCTION request_erased(referrer text, request text) RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM request_erasure WHERE request_identifier = request AND party_id = referrer);
END $$;
