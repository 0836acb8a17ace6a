-- Measured by ops/bench (README, "Performance"): the relay's marks must cost the same whatever
-- the table holds and however many rows are in flight.
--
-- A mark finds its rows by lease token. Every claim gives every row it leases a fresh value of
-- message_outbox_lease_token_seq, so a token names exactly one lease of exactly one row; this
-- unique index says so, and lets a mark probe its tokens (lease_token = ANY(...)) instead of
-- joining the batch against every leased row. Without it the planner, which usually believes
-- almost nothing is IN_PROGRESS, joined a 256-row batch against all in-flight rows: 12 ms per
-- mark with 256 in flight, growing with every relay added. Stale-lease recovery reads the same
-- small index (it holds only leased rows), so the locked_at index it used is dropped.
CREATE UNIQUE INDEX message_outbox_lease_idx ON message_outbox (lease_token) WHERE status = 'IN_PROGRESS';
DROP INDEX message_outbox_in_progress_idx;

-- Every state change rewrites status, which the partial indexes' predicates read, so no update is
-- HOT and each leaves a dead row version and dead index entries behind: two per published row.
-- Vacuum after 1% of the table has changed (PostgreSQL's default is 20%, which on a table of
-- 10 million published rows would let 2 million dead versions pile up in front of the claim).
ALTER TABLE message_outbox SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.01,
    autovacuum_analyze_scale_factor = 0.02);
