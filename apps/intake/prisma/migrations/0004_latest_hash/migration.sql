-- The canonical hash of the request's latest version, kept on the request itself: the state
-- machine compares every incoming bundle with it (decisions.md: an identical bundle is a retry), and
-- reading it from request_version cost a second statement per submission.
ALTER TABLE admission_request ADD COLUMN latest_hash text;
UPDATE admission_request r
   SET latest_hash = v.canonical_hash
  FROM request_version v
 WHERE v.request_id = r.id AND v.version = r.current_version;
ALTER TABLE admission_request ALTER COLUMN latest_hash SET NOT NULL;
