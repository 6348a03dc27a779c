-- The clinics each version was sent to (issue 26, point 2): a clinic's versions are then found and
-- paged in SQL, without opening every bundle of its request to replay who was sent what
-- (src/clinic-tasks/versions-sent.ts). NULL for a version stored before: such a request's versions
-- are still found by that replay.
ALTER TABLE request_version ADD COLUMN sent_to text[];

-- The order of a request's documents, to read them a page at a time and one by its position: the
-- documents of one batch share their received_at, so they are ordered by (received_at, seq). New
-- rows number in the order they are inserted; rows that exist get numbers in the order they are
-- found, a stable order among the documents of one batch.
ALTER TABLE request_document ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
