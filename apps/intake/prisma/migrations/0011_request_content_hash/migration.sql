-- The fingerprint of a request's latest version without its clinics and its envelope (the bundle's
-- id, identifier and timestamp): a new version with the same fingerprint and more clinics only adds
-- clinics, and leaves the Tasks of the clinics asked before as they are (docs/api.md, "Answer
-- deadlines", asking further clinics). Keyed like latest_hash (docs/data-protection.md). None for a
-- version stored before this migration, whose next version is then a supplement as before.
ALTER TABLE admission_request ADD COLUMN latest_content_hash text;
