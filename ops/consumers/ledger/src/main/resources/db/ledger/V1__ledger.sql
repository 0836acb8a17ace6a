-- The ledger consumer's own tables, applied by the consumer runtime before it consumes (history:
-- flyway_ledger_history, beside the outbox's outbox_schema_history). Until the outbox's own
-- scripts stop creating them, a database the outbox migrated already has both tables, in exactly
-- this shape (its V1, V2 and V8): hence IF NOT EXISTS, and nothing here that would differ.
-- LedgerMigrationsIT compares the two.

-- Where a table is there already, PostgreSQL says so in a NOTICE, which Flyway logs as a WARN at
-- every start-up of an upgraded database; that is the expected case, not a fault.
SET LOCAL client_min_messages = warning;

-- The effect. The business key (one entry per payment and entry type) deduplicates the effect
-- itself, beside the transport dedupe on message id. One transaction may book several entries (a
-- predecessor and its held successors); entry_seq, not a timestamp, shows the order they were
-- applied in.
CREATE TABLE IF NOT EXISTS ledger_entries (
    id           UUID          PRIMARY KEY,
    order_id     UUID          NOT NULL,
    payment_id   UUID          NOT NULL,
    entry_type   TEXT          NOT NULL CHECK (entry_type IN ('CAPTURE', 'REFUND')),
    amount       NUMERIC(19,4) NOT NULL CHECK (amount > 0),
    currency     CHAR(3)       NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    message_id   TEXT          NOT NULL,
    booked_at    TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
    entry_seq    BIGINT        GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT ledger_entries_one_per_payment_and_type UNIQUE (payment_id, entry_type)
);

CREATE INDEX IF NOT EXISTS ledger_entries_order_idx ON ledger_entries (order_id);
CREATE UNIQUE INDEX IF NOT EXISTS ledger_entries_entry_seq_idx ON ledger_entries (entry_seq);

-- The journal: one row per event applied, written in the transaction of the effect, so it holds
-- exactly what committed. It lets anyone check from outside that each aggregate's versions were
-- applied in order, each once, none skipped (ops/chaos.sh does), and how long an event took from
-- its commit to its application.
CREATE TABLE IF NOT EXISTS ledger_journal (
    seq                BIGSERIAL   PRIMARY KEY,
    consumer_name      TEXT        NOT NULL,
    instance_id        TEXT        NOT NULL,
    aggregate_type     TEXT,
    aggregate_id       TEXT,
    aggregate_version  BIGINT,
    message_id         TEXT        NOT NULL,
    message_type       TEXT        NOT NULL,
    -- clock_timestamp, not now(): a held successor applied in its predecessor's transaction gets its own time
    applied_at         TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS ledger_journal_aggregate_idx ON ledger_journal (consumer_name, aggregate_type, aggregate_id, seq);
CREATE INDEX IF NOT EXISTS ledger_journal_message_idx ON ledger_journal (message_id);
