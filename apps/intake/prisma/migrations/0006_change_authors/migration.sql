-- Who sent each version and each document: the person of the referrer party, their user id (the
-- access token's act.sub; docs/parties.md, "Tokens"). Display names are not kept here: the audit
-- trail has the name at the time (docs/data-protection.md, "Staff").
ALTER TABLE request_version ADD COLUMN submitted_by text;
ALTER TABLE request_document ADD COLUMN submitted_by text;

-- Release 1.0 had one user per party, whose id auth's migration 0002_parties gave the party: the
-- request's referrer party id is that user.
UPDATE request_version v SET submitted_by = r.referrer_party_id FROM admission_request r WHERE r.id = v.request_id;
UPDATE request_document d SET submitted_by = r.referrer_party_id FROM admission_request r WHERE r.id = d.request_id;

-- Left nullable until release 1.2: intake 1.0 processes still running during the rolling update
-- insert rows without it, and must not fail. NULL means what it meant in 1.0: the request's
-- referrer party, its only user. Release 1.2 backfills those rows the same way and sets NOT NULL.
