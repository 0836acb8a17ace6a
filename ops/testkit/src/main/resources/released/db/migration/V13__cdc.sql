-- CDC relay mode (issue 22, OUTBOX_RELAY_MODE=cdc): the relay reads inserted outbox rows from the
-- write-ahead log through a logical replication slot (pgoutput) instead of polling for them.
--
-- The publication the slot reads: inserts into message_outbox only. Claims, marks and operator
-- repairs are updates, and never news to the relay. Creating a publication needs no particular
-- wal_level; reading it through a slot needs wal_level = logical (the relay says so at start).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'outbox_inserts') THEN
        CREATE PUBLICATION outbox_inserts FOR TABLE message_outbox WITH (publish = 'insert');
    END IF;
END
$$;

-- Where the stream stands, one row per slot, written by the relay that reads the slot. Every
-- transaction whose id precedes stream_xmin has been through the stream: its rows were published,
-- failed (and are the retry path's, as RETRYABLE_FAILED or PARKED), or were deliberately left
-- PENDING (held behind an unfinished earlier version, not due yet). So the polling claim, which in
-- CDC mode is only the retry path, may take a PENDING row exactly when its xmin precedes
-- stream_xmin: never one the stream is still about to publish. A slot recreated after it was
-- invalidated starts its stream later; the rows committed in between precede the new position's
-- xmin and are published by polling.
CREATE TABLE outbox_cdc_position (
    slot_name      TEXT PRIMARY KEY,
    relay_id       TEXT NOT NULL,
    stream_xmin    BIGINT NOT NULL,
    confirmed_lsn  PG_LSN NOT NULL,
    stream_time    TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
