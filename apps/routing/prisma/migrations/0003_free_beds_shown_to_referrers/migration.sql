-- Whether the clinic shows its published free beds to referrers (GET /api/v1/kliniken/free-beds,
-- docs/api.md, "Free beds for referrers"). Off until the clinic switches it on: a count was published
-- for the service's bookings, not for other parties' eyes.
ALTER TABLE clinic ADD COLUMN shown_to_referrers boolean NOT NULL DEFAULT false;

-- The referrers' read asks for one date across all clinics: found by the date, not by a scan of every
-- clinic's counts.
CREATE INDEX bed_capacity_admission_date_department_code_idx ON bed_capacity (admission_date, department_code);
