-- Orders, the transactional outbox, and the consumer side (dedupe records, the sample ledger).
-- Constraints carry the invariants so that a bug or a hand-written SQL statement cannot store a
-- state the code would never produce.

CREATE TABLE orders (
    id               UUID          PRIMARY KEY,
    customer_id      TEXT          NOT NULL CHECK (length(customer_id) BETWEEN 1 AND 128),
    tenant_id        TEXT,
    status           TEXT          NOT NULL CHECK (status IN ('PLACED', 'CAPTURED', 'CANCELLED')),
    version          BIGINT        NOT NULL CHECK (version >= 1),
    currency         CHAR(3)       NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total            NUMERIC(19,4) NOT NULL CHECK (total > 0),
    payment_id       UUID,
    cancel_reason    TEXT,
    created_at       TIMESTAMPTZ   NOT NULL,
    updated_at       TIMESTAMPTZ   NOT NULL,
    -- a captured order always knows its payment; only a cancelled order has a reason
    CONSTRAINT orders_captured_has_payment CHECK (status <> 'CAPTURED' OR payment_id IS NOT NULL),
    CONSTRAINT orders_reason_only_when_cancelled CHECK ((status = 'CANCELLED') = (cancel_reason IS NOT NULL))
);

CREATE TABLE order_lines (
    order_id    UUID          NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    line_no     INTEGER       NOT NULL CHECK (line_no >= 1),
    sku         TEXT          NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
    quantity    INTEGER       NOT NULL CHECK (quantity BETWEEN 1 AND 10000),
    unit_price  NUMERIC(19,4) NOT NULL CHECK (unit_price >= 0),
    PRIMARY KEY (order_id, line_no)
);

-- Fencing tokens: every claim of a row takes a fresh, ever-increasing token, and every mark must
-- present the token of the claim it belongs to. A relay whose lease was taken over can never
-- overwrite the new owner's outcome, even if both relays have the same name.
CREATE SEQUENCE message_outbox_lease_token_seq AS BIGINT;

-- The canonical outbox shape (seed 001, section 5) plus aggregate_version and lease_token.
-- The canonical UNIQUE (message_type, aggregate_id, id) is left out on purpose: id is already the
-- primary key, so that index would only cost every insert a second B-tree write.
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
                        CHECK (status IN ('PENDING', 'IN_PROGRESS', 'PUBLISHED', 'RETRYABLE_FAILED', 'PARKED', 'CANCELLED')),
    attempt_count       INTEGER     NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_error_code     TEXT
                        CHECK (last_error_code IN ('BROKER_UNAVAILABLE', 'CONNECTION_LOST', 'CONFIRM_TIMEOUT', 'NACKED',
                                                   'UNROUTABLE', 'EXCHANGE_NOT_FOUND', 'ACCESS_REFUSED', 'CHANNEL_ERROR',
                                                   'PAYLOAD_INVALID', 'STALE_LOCK', 'OPERATOR')),
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
    -- a lease exists exactly while a relay holds the row
    CONSTRAINT message_outbox_lease_iff_in_progress
        CHECK ((status = 'IN_PROGRESS') = (locked_by IS NOT NULL AND locked_at IS NOT NULL AND lease_token IS NOT NULL)),
    CONSTRAINT message_outbox_published_has_time CHECK (status <> 'PUBLISHED' OR published_at IS NOT NULL),
    -- failures are data: a failed or parked row says why
    CONSTRAINT message_outbox_failure_has_code
        CHECK (status NOT IN ('RETRYABLE_FAILED', 'PARKED') OR last_error_code IS NOT NULL)
);

-- The relay's claim: due rows in due order. Partial, so published history never bloats it.
CREATE INDEX message_outbox_pending_idx
    ON message_outbox (next_attempt_at, created_at)
    WHERE status IN ('PENDING', 'RETRYABLE_FAILED');

-- Per-aggregate order and debugging ("every event of order X"); versions of one aggregate are unique.
CREATE UNIQUE INDEX message_outbox_aggregate_idx
    ON message_outbox (aggregate_type, aggregate_id, aggregate_version);

-- Stale-lease recovery scans only rows that are held.
CREATE INDEX message_outbox_in_progress_idx
    ON message_outbox (locked_at)
    WHERE status = 'IN_PROGRESS';

-- A consumer's record of what it has applied: the insert shares the transaction of the effect.
CREATE TABLE processed_messages (
    consumer_name  TEXT        NOT NULL CHECK (consumer_name <> ''),
    message_id     TEXT        NOT NULL CHECK (message_id <> ''),
    processed_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_name, message_id)
);

CREATE INDEX processed_messages_processed_at_idx ON processed_messages (processed_at);

-- The sample ledger consumer's effect. The business key (one entry per payment and entry type)
-- deduplicates the effect itself, beside the transport dedupe on message id.
CREATE TABLE ledger_entries (
    id           UUID          PRIMARY KEY,
    order_id     UUID          NOT NULL,
    payment_id   UUID          NOT NULL,
    entry_type   TEXT          NOT NULL CHECK (entry_type IN ('CAPTURE', 'REFUND')),
    amount       NUMERIC(19,4) NOT NULL CHECK (amount > 0),
    currency     CHAR(3)       NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    message_id   TEXT          NOT NULL,
    booked_at    TIMESTAMPTZ   NOT NULL DEFAULT now(),
    CONSTRAINT ledger_entries_one_per_payment_and_type UNIQUE (payment_id, entry_type)
);

CREATE INDEX ledger_entries_order_idx ON ledger_entries (order_id);
