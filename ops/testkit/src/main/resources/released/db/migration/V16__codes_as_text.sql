-- In a rolling upgrade the old version runs beside the new one on the same table, so a
-- status or error code the new version adds must be storable while the old one still runs, and
-- the old one must read it. Both checks held a list of names, so every new code needed a migration
-- that the old version then ran under (and a newer version's code was refused until it ran). They
-- now hold the form every code has, as ops_audit_action_check does since V15 (and as
-- dev.outbox.kernel.outbox.Codes.SHAPE says in Java): upper-case words, a letter first, at most 40
-- chars. Which codes a version writes is its own business; every version reads a code it does not
-- know as text, counts it under its own name, and never claims a row in a status it does not know.
-- A code is removed (contract) only once no running version can write it (expand first).
--
-- NOT VALID, as in V7 and V11: every existing row passed the narrower lists, so there is nothing
-- to check, and validating would hold an exclusive lock on the outbox while it scans.
-- status's check is the column's default-named one from V1; last_error_code's was last replaced in
-- V11. message_outbox_failure_has_code, _lease_iff_in_progress, _published_has_time and
-- _cancelled_has_time name only known statuses and say nothing about any other, so they stand.
ALTER TABLE message_outbox
    DROP CONSTRAINT message_outbox_status_check,
    ADD CONSTRAINT message_outbox_status_check CHECK (status ~ '^[A-Z][A-Z0-9_]{0,39}$') NOT VALID,
    DROP CONSTRAINT message_outbox_last_error_code_check,
    ADD CONSTRAINT message_outbox_last_error_code_check
        CHECK (last_error_code IS NULL OR last_error_code ~ '^[A-Z][A-Z0-9_]{0,39}$') NOT VALID;

-- Rows in a status this version does not know are counted under their own names on every metrics
-- scrape (OpsMapper.unknownStatusCounts, outbox_unknown_status_count{status}). Like every other
-- count of the gauges, it reads a partial index, not the table: this one holds only the rows in a
-- status none of V1's six, so it is empty until a newer version writes one, gains no entry from
-- the relay's claims and marks (no row they write is in such a status), and serves every later
-- version too (a version that knows more statuses excludes more, which still implies this
-- predicate, and counts a status it added through it as well). Not
-- CONCURRENTLY, as in V9: building it reads the table once while writes to it wait (about a second
-- per million rows); on a large outbox, build it by hand first with CREATE INDEX CONCURRENTLY and
-- this definition, and IF NOT EXISTS then skips it here.
CREATE INDEX IF NOT EXISTS message_outbox_later_status_idx
    ON message_outbox (status)
    WHERE status NOT IN ('PENDING', 'IN_PROGRESS', 'PUBLISHED', 'RETRYABLE_FAILED', 'PARKED', 'CANCELLED');
