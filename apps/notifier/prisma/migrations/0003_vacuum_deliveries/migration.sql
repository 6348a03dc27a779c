-- Every delivery is inserted pending and updated once or more: its old versions stay in the
-- pending-by-due-time index until VACUUM, and the worker's claim reads past them (measured: 4,800
-- buffers per claim after a few minutes at 200 events/s). Vacuum this table once 5,000 rows have
-- died, not 20 % of the table (PostgreSQL's default, which grows with the retention), and without
-- the cost-based pauses: it is small and hot.
ALTER TABLE delivery SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000, autovacuum_vacuum_cost_delay = 0);
