-- Bundles (about 6 kB each) are compressed when stored (TOAST). PostgreSQL's default, pglz, costs
-- several times the CPU of lz4 for the same bundle; lz4 where the server was built with it.
DO $$
BEGIN
  ALTER TABLE request_version ALTER COLUMN bundle SET COMPRESSION lz4;
  ALTER TABLE request_document ALTER COLUMN bundle SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available: bundles stay compressed with pglz';
END $$;
