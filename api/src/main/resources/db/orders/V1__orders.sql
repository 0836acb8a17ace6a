-- The order service's own tables, applied by the API at start (history: flyway_orders_history,
-- beside the outbox's outbox_schema_history). Until the outbox's own scripts stop creating them,
-- a database the outbox migrated already has both tables, in exactly this shape (its V1 and V10):
-- hence IF NOT EXISTS, and nothing here that would differ. OrdersMigrationsIT compares the two.
-- Constraints carry the invariants so that a bug or a hand-written SQL statement cannot store a
-- state the code would never produce.

-- Where a table is there already, PostgreSQL says so in a NOTICE, which Flyway logs as a WARN at
-- every start-up of an upgraded database; that is the expected case, not a fault.
SET LOCAL client_min_messages = warning;

CREATE TABLE IF NOT EXISTS orders (
    id               UUID          PRIMARY KEY,
    customer_id      TEXT          NOT NULL CHECK (length(customer_id) BETWEEN 1 AND 128),
    tenant_id        TEXT,
    status           TEXT          NOT NULL CHECK (status IN ('PLACED', 'CAPTURED', 'SHIPPED', 'CANCELLED')),
    version          BIGINT        NOT NULL CHECK (version >= 1),
    currency         CHAR(3)       NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total            NUMERIC(19,4) NOT NULL CHECK (total > 0),
    payment_id       UUID,
    cancel_reason    TEXT,
    created_at       TIMESTAMPTZ   NOT NULL,
    updated_at       TIMESTAMPTZ   NOT NULL,
    -- a captured or shipped order always knows its payment; only a cancelled order has a reason
    CONSTRAINT orders_captured_has_payment CHECK (status <> 'CAPTURED' OR payment_id IS NOT NULL),
    CONSTRAINT orders_shipped_has_payment CHECK (status <> 'SHIPPED' OR payment_id IS NOT NULL),
    CONSTRAINT orders_reason_only_when_cancelled CHECK ((status = 'CANCELLED') = (cancel_reason IS NOT NULL))
);

CREATE TABLE IF NOT EXISTS order_lines (
    order_id    UUID          NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    line_no     INTEGER       NOT NULL CHECK (line_no >= 1),
    sku         TEXT          NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
    quantity    INTEGER       NOT NULL CHECK (quantity BETWEEN 1 AND 10000),
    unit_price  NUMERIC(19,4) NOT NULL CHECK (unit_price >= 0),
    PRIMARY KEY (order_id, line_no)
);
