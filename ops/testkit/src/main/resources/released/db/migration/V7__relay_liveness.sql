-- A relay that dies holding leases used to keep its rows, and every later version of their
-- aggregates, waiting for the whole lease (2 min). A lease cannot be shortened without taking
-- rows from relays that are only slow. So leases are tied to the relay's life instead: every relay
-- process holds, for its lifetime, a session-level advisory lock on a connection of its own. The
-- lock vanishes when the process dies (SIGKILL closes its socket at once) or when PostgreSQL gives
-- up on a silent host (per-session TCP keepalives); a paused or slow relay keeps it. Other relays
-- give back the rows of a registered relay whose lock nobody holds (RELAY_DIED), within seconds.
--
-- The registry names each relay and gives it the lock key. Keys come from an identity, not a hash
-- of the relay id, so two relay ids never share a lock. Rows of relays not in the registry (an
-- older relay version) are still recovered by the lease alone.
CREATE TABLE outbox_relays (
    relay_id      TEXT        PRIMARY KEY CHECK (relay_id <> ''),
    -- the second key of pg_advisory_lock(namespace, lock_key); stable for the relay id
    lock_key      INTEGER     GENERATED ALWAYS AS IDENTITY UNIQUE,
    host          TEXT,
    pid           BIGINT,
    -- the backend of the liveness connection: what pg_terminate_backend would end
    backend_pid   INTEGER,
    started_at    TIMESTAMPTZ,
    heartbeat_at  TIMESTAMPTZ,
    registered_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- RELAY_DIED: the row was given back because its relay died (its liveness lock was free), without
-- counting the attempt. NOT VALID: every existing row passed the old, narrower list, so there is
-- nothing to check, and validating would hold an exclusive lock on the outbox while it scans.
ALTER TABLE message_outbox DROP CONSTRAINT message_outbox_last_error_code_check;
ALTER TABLE message_outbox ADD CONSTRAINT message_outbox_last_error_code_check
    CHECK (last_error_code IN ('BROKER_UNAVAILABLE', 'CONNECTION_LOST', 'CONFIRM_TIMEOUT', 'NACKED',
                               'UNROUTABLE', 'EXCHANGE_NOT_FOUND', 'ACCESS_REFUSED', 'CHANNEL_ERROR',
                               'PAYLOAD_INVALID', 'STALE_LOCK', 'OPERATOR', 'RELAY_DIED')) NOT VALID;
