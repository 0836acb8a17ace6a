-- Measured by ops/bench: PostgreSQL serialises the commits of every transaction that notifies (a
-- database-wide lock held until the commit is flushed). With the V4 trigger notifying on every
-- business transaction, 16 concurrent writers committed 3,987 one-row transactions a second
-- instead of 9,167. A notification is only useful to a relay that is waiting for work; a busy
-- relay claims again as soon as it has sent its batch. So relays say when they wait, and the
-- trigger notifies only then.
--
-- A relay adds its row when a claim comes back empty, claims once more (so a row committed
-- before the registration is not left waiting), then sleeps; it removes the row when a claim
-- returns work. A waiting relay refreshes its row every 30 s; rows older than a minute (a relay
-- that died while waiting) are ignored, so a crash never leaves writers paying for nobody.
-- UNLOGGED: the rows are transient state, never worth a WAL flush, and empty after a crash.
CREATE UNLOGGED TABLE outbox_relay_waiters (
    relay_id  TEXT        PRIMARY KEY,
    since     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Still one notification per business transaction at most (identical notifications of one
-- transaction are delivered once), and still only a hint: a wake-up lost to the moment between
-- this check and the relay's registration costs at most one poll interval.
CREATE OR REPLACE FUNCTION outbox_notify_pending() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM outbox_relay_waiters WHERE since > now() - interval '1 minute') THEN
        PERFORM pg_notify('outbox_pending', '');
    END IF;
    RETURN NULL;
END;
$$;
