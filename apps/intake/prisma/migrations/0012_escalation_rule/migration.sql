-- Asking by rule (docs/api.md, "Answer deadlines", "Asking by rule"): a referrer party's rule for
-- asking further clinics after a request's deadline, the rule each Task asked by it was asked by,
-- and when the rule last looked at a request.

-- The party's rule as PUT /api/v1/referrer/settings took it (EscalationRule of libs/contracts), and
-- when it was last set: it looks at what happens to a request's Tasks after that, not before.
ALTER TABLE referrer_settings ADD COLUMN escalation jsonb;
ALTER TABLE referrer_settings ADD COLUMN escalation_set_at timestamptz(3);

-- The rule that asked the clinic, with where the clinic came from (`list` or `registry`); NULL for
-- a clinic the referrer named in a version.
ALTER TABLE clinic_task ADD COLUMN asked_by_rule jsonb;

-- What the rule saw when it last looked at the request: the sum of its Tasks' revisions plus their
-- number, which every change of a Task (an overdue mark, an answer) and every new Task raises. A
-- request whose sum differs is looked at again; a count, not a time, so that no change committed
-- while the rule looked is missed.
ALTER TABLE admission_request ADD COLUMN escalation_seen_changes bigint;
