-- The outbox's schema at version 16 in one script, for a new database: Flyway applies a baseline
-- migration (B) only while the outbox's history (outbox_schema_history) is empty, and then only
-- the versioned scripts above it. A database the V scripts migrated (by an earlier release, or by
-- this one before this script existed) already holds version 16 and never runs it.
--
-- It makes exactly what V1 to V16 make, minus the order sample's and the ledger sample's tables
-- (orders, order_lines, ledger_entries, ledger_journal): those belong to the samples' own
-- migrations (db/orders, db/ledger), and a service that adopts the outbox gets only the outbox's
-- tables. Why each object is the way it is, and what each number was measured by, is said in the V
-- script that made it (named beside it below). NewDatabaseSchemaIT holds this script to the V
-- scripts' result, object for object. Two differences, both on purpose: the constraints the V
-- scripts added NOT VALID (to spare a large table's scan) are validated here, where the table is
-- empty; and V2's copy of existing versions into outbox_aggregate_heads has nothing to copy.
--
-- Released with this version like any other script: a change to the schema is a new V script
-- (V17 and on), never an edit here.

-- V1: fencing tokens, one per claim of a row
CREATE SEQUENCE message_outbox_lease_token_seq AS BIGINT;

-- V1 (canonical shape, lease, fencing), V3 (cancelled_at), V16 (statuses and codes as text)
CREATE TABLE message_outbox (
    id                  UUID        PRIMARY KEY DEFAULT gen_random_uuid(),
    aggregate_type      TEXT        NOT NULL CHECK (aggregate_type <> ''),
    aggregate_id        TEXT        NOT NULL CHECK (aggregate_id <> ''),
    aggregate_version   BIGINT      CHECK (aggregate_version >= 1),
    message_type        TEXT        NOT NULL CHECK (message_type <> ''),
    message_version     INTEGER     NOT NULL DEFAULT 1 CHECK (message_version >= 1),
    exchange_name       TEXT        NOT NULL,
    routing_key         TEXT        NOT NULL,
    payload             JSONB       NOT NULL,
    headers             JSONB       NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(headers) = 'object'),
    status              TEXT        NOT NULL DEFAULT 'PENDING'
                        CHECK (status ~ '^[A-Z][A-Z0-9_]{0,39}$'),
    attempt_count       INTEGER     NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_error_code     TEXT
                        CHECK (last_error_code IS NULL OR last_error_code ~ '^[A-Z][A-Z0-9_]{0,39}$'),
    last_error_message  TEXT,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    locked_at           TIMESTAMPTZ,
    locked_by           TEXT,
    lease_token         BIGINT,
    published_at        TIMESTAMPTZ,
    correlation_id      TEXT,
    causation_id        TEXT,
    trace_id            TEXT,
    tenant_id           TEXT,
    cancelled_at        TIMESTAMPTZ,
    CONSTRAINT message_outbox_lease_iff_in_progress
        CHECK ((status = 'IN_PROGRESS') = (locked_by IS NOT NULL AND locked_at IS NOT NULL AND lease_token IS NOT NULL)),
    CONSTRAINT message_outbox_published_has_time CHECK (status <> 'PUBLISHED' OR published_at IS NOT NULL),
    CONSTRAINT message_outbox_failure_has_code
        CHECK (status NOT IN ('RETRYABLE_FAILED', 'PARKED') OR last_error_code IS NOT NULL),
    CONSTRAINT message_outbox_cancelled_has_time
        CHECK ((status = 'CANCELLED') <= (cancelled_at IS NOT NULL))
);

-- V5: vacuum after 1% of the table changed
ALTER TABLE message_outbox SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.01,
    autovacuum_analyze_scale_factor = 0.02);

-- V1: the relay's claim
CREATE INDEX message_outbox_pending_idx
    ON message_outbox (next_attempt_at, created_at)
    WHERE status IN ('PENDING', 'RETRYABLE_FAILED');

-- V2: the strict-order check of the claim
CREATE INDEX message_outbox_unfinished_versions_idx
    ON message_outbox (aggregate_type, aggregate_id, aggregate_version)
    WHERE status NOT IN ('PUBLISHED', 'CANCELLED') AND aggregate_version IS NOT NULL;

-- V3: gauges, retention
CREATE INDEX message_outbox_parked_idx ON message_outbox (last_error_code) WHERE status = 'PARKED';
CREATE INDEX message_outbox_published_at_idx ON message_outbox (published_at) WHERE status = 'PUBLISHED';
CREATE INDEX message_outbox_cancelled_at_idx ON message_outbox (cancelled_at) WHERE status = 'CANCELLED';

-- V5: marks and stale-lease recovery by lease token
CREATE UNIQUE INDEX message_outbox_lease_idx ON message_outbox (lease_token) WHERE status = 'IN_PROGRESS';

-- V9: the operators' and the API's indexes leave leased rows out
CREATE INDEX message_outbox_created_unleased_idx
    ON message_outbox (created_at DESC, id DESC)
    WHERE status <> 'IN_PROGRESS';

CREATE INDEX message_outbox_correlation_unleased_idx
    ON message_outbox (correlation_id)
    WHERE correlation_id IS NOT NULL AND status <> 'IN_PROGRESS';

CREATE INDEX message_outbox_tenant_unleased_idx
    ON message_outbox (tenant_id, created_at)
    WHERE tenant_id IS NOT NULL AND status <> 'IN_PROGRESS';

CREATE UNIQUE INDEX message_outbox_aggregate_unleased_idx
    ON message_outbox (aggregate_type, aggregate_id, aggregate_version)
    WHERE status <> 'IN_PROGRESS';

-- V12: due suspects
CREATE INDEX message_outbox_suspect_idx
    ON message_outbox (next_attempt_at, created_at)
    WHERE last_error_code = 'RELAY_DIED' AND status IN ('PENDING', 'RETRYABLE_FAILED');

-- V16: rows in a status this version does not know
CREATE INDEX message_outbox_later_status_idx
    ON message_outbox (status)
    WHERE status NOT IN ('PENDING', 'IN_PROGRESS', 'PUBLISHED', 'RETRYABLE_FAILED', 'PARKED', 'CANCELLED');

-- V2: gapless, unique aggregate versions; identity and place never change
CREATE TABLE outbox_aggregate_heads (
    aggregate_type  TEXT   NOT NULL,
    aggregate_id    TEXT   NOT NULL,
    last_version    BIGINT NOT NULL CHECK (last_version >= 1),
    PRIMARY KEY (aggregate_type, aggregate_id)
);

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

-- V6 (after V4): wake relays that wait, once per committing transaction
CREATE UNLOGGED TABLE outbox_relay_waiters (
    relay_id  TEXT        PRIMARY KEY,
    since     TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE FUNCTION outbox_notify_pending() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM outbox_relay_waiters WHERE since > now() - interval '1 minute') THEN
        PERFORM pg_notify('outbox_pending', '');
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER message_outbox_notify_pending
    AFTER INSERT ON message_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify_pending();

-- V7: relays' liveness
CREATE TABLE outbox_relays (
    relay_id      TEXT        PRIMARY KEY CHECK (relay_id <> ''),
    lock_key      INTEGER     GENERATED ALWAYS AS IDENTITY UNIQUE,
    host          TEXT,
    pid           BIGINT,
    backend_pid   INTEGER,
    started_at    TIMESTAMPTZ,
    heartbeat_at  TIMESTAMPTZ,
    registered_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- V13: where a CDC relay's stream stands
CREATE TABLE outbox_cdc_position (
    slot_name      TEXT PRIMARY KEY,
    relay_id       TEXT NOT NULL,
    stream_xmin    BIGINT NOT NULL,
    confirmed_lsn  PG_LSN NOT NULL,
    stream_time    TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- V13 and V14: the publication a CDC relay's slot reads. It belongs to the database, not to the
-- schema, so it may exist already (another schema's outbox, or a schema dropped and made again);
-- then this schema's table joins it.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'outbox_inserts') THEN
        CREATE PUBLICATION outbox_inserts FOR TABLE message_outbox WITH (publish = 'insert');
    ELSIF NOT EXISTS (SELECT 1 FROM pg_publication_tables
                       WHERE pubname = 'outbox_inserts'
                         AND schemaname = current_schema()
                         AND tablename = 'message_outbox') THEN
        ALTER PUBLICATION outbox_inserts ADD TABLE message_outbox;
    END IF;
END
$$;

-- V1: a consumer's record of what it has applied
CREATE TABLE processed_messages (
    consumer_name  TEXT        NOT NULL CHECK (consumer_name <> ''),
    message_id     TEXT        NOT NULL CHECK (message_id <> ''),
    processed_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_name, message_id)
);

CREATE INDEX processed_messages_processed_at_idx ON processed_messages (processed_at);

-- V2: the consumer framework
CREATE TABLE consumer_aggregate_positions (
    consumer_name   TEXT        NOT NULL,
    aggregate_type  TEXT        NOT NULL,
    aggregate_id    TEXT        NOT NULL,
    last_version    BIGINT      NOT NULL CHECK (last_version >= 0),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_name, aggregate_type, aggregate_id)
);

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

-- V2: idempotent HTTP writes (the product's retention owns the table)
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

-- V3 (after V15: any upper-case action): the operators' audit trail
CREATE TABLE ops_audit (
    id            BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor         TEXT        NOT NULL CHECK (actor <> ''),
    role          TEXT        NOT NULL CHECK (role IN ('operator', 'read-only')),
    action        TEXT        NOT NULL CHECK (action ~ '^[A-Z][A-Z_]{0,39}$'),
    message_ids   UUID[]      NOT NULL DEFAULT '{}',
    filter        JSONB,
    reason        TEXT,
    affected      INTEGER     NOT NULL CHECK (affected >= 0)
);

CREATE INDEX ops_audit_message_ids_idx ON ops_audit USING gin (message_ids);
