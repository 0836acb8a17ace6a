-- The sample ledger consumer's journal: one row per event it applied, written in the transaction
-- of the effect, so it holds exactly what committed. It lets anyone check from outside that each
-- aggregate's versions were applied in order, each once, none skipped (ops/chaos.sh does), and
-- how long an event took from its commit to its application.
CREATE TABLE ledger_journal (
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

CREATE INDEX ledger_journal_aggregate_idx ON ledger_journal (consumer_name, aggregate_type, aggregate_id, seq);
CREATE INDEX ledger_journal_message_idx ON ledger_journal (message_id);
