-- Per-aggregate ordering, the consumer framework's state, and idempotent HTTP writes.

-- 1. Gapless, unique aggregate versions in the outbox -------------------------------------
-- The head table remembers each aggregate's last version even after retention deleted its old
-- rows, so "version N must follow N-1" holds for the aggregate's whole life, not only for the
-- rows still present. Its row lock also serialises two transactions writing the same aggregate.
CREATE TABLE outbox_aggregate_heads (
    aggregate_type  TEXT   NOT NULL,
    aggregate_id    TEXT   NOT NULL,
    last_version    BIGINT NOT NULL CHECK (last_version >= 1),
    PRIMARY KEY (aggregate_type, aggregate_id)
);

INSERT INTO outbox_aggregate_heads (aggregate_type, aggregate_id, last_version)
SELECT aggregate_type, aggregate_id, max(aggregate_version)
  FROM message_outbox
 WHERE aggregate_version IS NOT NULL
 GROUP BY aggregate_type, aggregate_id;

CREATE FUNCTION message_outbox_gapless_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.aggregate_version IS NULL THEN
        RETURN NEW; -- a row without a version takes no part in ordering
    END IF;
    IF NEW.aggregate_version = 1 THEN
        INSERT INTO outbox_aggregate_heads (aggregate_type, aggregate_id, last_version)
        VALUES (NEW.aggregate_type, NEW.aggregate_id, 1)
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE outbox_aggregate_heads
           SET last_version = NEW.aggregate_version
         WHERE aggregate_type = NEW.aggregate_type
           AND aggregate_id = NEW.aggregate_id
           AND last_version = NEW.aggregate_version - 1;
    END IF;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'check_violation',
            CONSTRAINT = 'message_outbox_gapless_versions',
            TABLE = 'message_outbox',
            MESSAGE = format('aggregate %s %s: version %s does not directly follow its last version',
                             NEW.aggregate_type, NEW.aggregate_id, NEW.aggregate_version);
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER message_outbox_gapless_versions
    BEFORE INSERT ON message_outbox
    FOR EACH ROW EXECUTE FUNCTION message_outbox_gapless_versions();

-- a row's identity and place in its aggregate never change after it is written
CREATE FUNCTION message_outbox_identity_is_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'check_violation',
        CONSTRAINT = 'message_outbox_identity_is_immutable',
        TABLE = 'message_outbox',
        MESSAGE = 'aggregate_type, aggregate_id and aggregate_version of an outbox row cannot change';
END
$$;

CREATE TRIGGER message_outbox_identity_is_immutable
    BEFORE UPDATE OF aggregate_type, aggregate_id, aggregate_version ON message_outbox
    FOR EACH ROW
    WHEN (OLD.aggregate_type IS DISTINCT FROM NEW.aggregate_type
       OR OLD.aggregate_id IS DISTINCT FROM NEW.aggregate_id
       OR OLD.aggregate_version IS DISTINCT FROM NEW.aggregate_version)
    EXECUTE FUNCTION message_outbox_identity_is_immutable();

-- 2. The consumer framework -----------------------------------------------------------------
-- The last version each consumer applied, per aggregate; its row lock serialises consumer
-- instances working on the same aggregate.
CREATE TABLE consumer_aggregate_positions (
    consumer_name   TEXT        NOT NULL,
    aggregate_type  TEXT        NOT NULL,
    aggregate_id    TEXT        NOT NULL,
    last_version    BIGINT      NOT NULL CHECK (last_version >= 0),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_name, aggregate_type, aggregate_id)
);

-- Messages that arrived before their predecessor, kept (durably) until it is applied.
CREATE TABLE consumer_held_messages (
    consumer_name      TEXT        NOT NULL,
    aggregate_type     TEXT        NOT NULL,
    aggregate_id       TEXT        NOT NULL,
    aggregate_version  BIGINT      NOT NULL CHECK (aggregate_version >= 1),
    message_id         TEXT        NOT NULL,
    message_type       TEXT        NOT NULL,
    message_version    INTEGER     NOT NULL,
    correlation_id     TEXT,
    headers            JSONB       NOT NULL DEFAULT '{}'::jsonb,
    body               BYTEA       NOT NULL,
    held_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_name, aggregate_type, aggregate_id, aggregate_version)
);

CREATE INDEX consumer_held_messages_held_at_idx ON consumer_held_messages (held_at);

-- Failed processing attempts, counted outside the rolled-back transaction; a message that keeps
-- failing goes to the dead-letter queue with its reason.
CREATE TABLE consumer_failures (
    consumer_name     TEXT        NOT NULL,
    message_id        TEXT        NOT NULL,
    attempts          INTEGER     NOT NULL CHECK (attempts >= 1),
    last_error        TEXT        NOT NULL,
    first_failed_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_failed_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    dead_lettered_at  TIMESTAMPTZ,
    PRIMARY KEY (consumer_name, message_id)
);

-- Calls outside the database (e-mail, a payment provider) made at most once: the row is
-- committed PENDING with the dedupe record before the call and marked DONE after it, so a crash
-- in between leaves a PENDING row that names the message to repair by hand.
CREATE TABLE consumer_side_effects (
    consumer_name  TEXT        NOT NULL,
    message_id     TEXT        NOT NULL,
    effect         TEXT        NOT NULL,
    status         TEXT        NOT NULL CHECK (status IN ('PENDING', 'DONE')),
    started_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    completed_at   TIMESTAMPTZ,
    CHECK ((status = 'DONE') = (completed_at IS NOT NULL)),
    PRIMARY KEY (consumer_name, message_id, effect)
);

CREATE INDEX consumer_side_effects_pending_idx ON consumer_side_effects (started_at) WHERE status = 'PENDING';

-- 3. Idempotent HTTP writes -----------------------------------------------------------------
-- Claimed at the start of the transaction of the business write (a concurrent request with the
-- same key waits on the primary key until it commits or rolls back) and completed with the
-- response before it commits; replayed for a retry with the same key and the same request; a
-- different request under the key is 422. The response columns are empty only inside the
-- claiming transaction.
CREATE TABLE idempotency_keys (
    scope              TEXT        NOT NULL,
    idempotency_key    TEXT        NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    request_hash       TEXT        NOT NULL,
    response_status    INTEGER     CHECK (response_status BETWEEN 200 AND 299),
    response_body      TEXT,
    response_location  TEXT,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at         TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, idempotency_key),
    CHECK ((response_status IS NULL) = (response_body IS NULL)),
    CHECK (expires_at > created_at)
);

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

-- 4. The strict-order check of the claim ---------------------------------------------------
-- "Is an earlier version of this aggregate still unfinished?" looks only at unfinished rows, so
-- the index stays as small as the backlog however much published history the table holds.
CREATE INDEX message_outbox_unfinished_versions_idx
    ON message_outbox (aggregate_type, aggregate_id, aggregate_version)
    WHERE status NOT IN ('PUBLISHED', 'CANCELLED') AND aggregate_version IS NOT NULL;

-- 5. The ledger's own posting order ----------------------------------------------------------
-- One transaction may book several entries (a predecessor and its held successors); a sequence,
-- not a timestamp, shows the order they were applied in.
ALTER TABLE ledger_entries ADD COLUMN entry_seq BIGINT GENERATED ALWAYS AS IDENTITY;
ALTER TABLE ledger_entries ALTER COLUMN booked_at SET DEFAULT clock_timestamp();
CREATE UNIQUE INDEX ledger_entries_entry_seq_idx ON ledger_entries (entry_seq);
