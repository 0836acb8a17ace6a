-- The invoicing service's own table. Its migrations keep their own history
-- (flyway_invoicing_history), beside the outbox's.
CREATE TABLE invoices (
    id          UUID          PRIMARY KEY,
    order_id    UUID          NOT NULL UNIQUE,
    amount      NUMERIC(19,4) NOT NULL CHECK (amount > 0),
    currency    CHAR(3)       NOT NULL,
    issued_at   TIMESTAMPTZ   NOT NULL
);
