-- A referrer's Task search (src/tasks/task-read.repository.ts) pages its Tasks by (last_modified, id)
-- among a year of other parties' Tasks. Through the request's referrer_party_id PostgreSQL had two
-- choices, both growing with history: every Task of the party's requests, sorted; or the Task table's
-- whole last_modified index, filtered by the join, which it took whenever the party looked large.
-- The Task carries its request's referrer (which never changes), and one index serves the access
-- condition, the order and the cursor at once, and the total as an index-only count.
ALTER TABLE clinic_task ADD COLUMN referrer_party_id text;
UPDATE clinic_task t SET referrer_party_id = r.referrer_party_id FROM admission_request r WHERE r.id = t.request_id;
ALTER TABLE clinic_task ALTER COLUMN referrer_party_id SET NOT NULL;
CREATE INDEX clinic_task_referrer_party_id_last_modified_idx ON clinic_task (referrer_party_id, last_modified, id);
