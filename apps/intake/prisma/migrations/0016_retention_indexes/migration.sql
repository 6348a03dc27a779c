-- The jobs that look for what retention ends (docs/data-protection.md, "Retention and erasure") find
-- it through an index instead of reading every request or every mail kept: the tables grow with the
-- service's history, and every intake process runs the jobs (the retention job hourly, the mail
-- sender's prune at every poll).

-- The requests the retention job may erase (src/erasure/request-erasure.repository.ts,
-- dueForRetention): revoked, or selected, and not erased yet (an erasure empties latest_hash), by
-- their last change. One index per kind, so that each is read up to its own bound alone.
CREATE INDEX admission_request_revoked_retention_idx ON admission_request (updated_at) WHERE status = 'revoked' AND latest_hash <> '';
CREATE INDEX admission_request_selected_retention_idx ON admission_request (updated_at) WHERE selected_clinic_ik IS NOT NULL AND latest_hash <> '';

-- The mail kept longer than its time (src/mail/mail-outbox.repository.ts, prune).
CREATE INDEX mail_outbox_created_at_idx ON mail_outbox (created_at);
