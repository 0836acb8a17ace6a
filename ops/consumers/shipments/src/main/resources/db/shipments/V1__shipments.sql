-- The shipments consumer's own table, applied by the consumer runtime before it consumes
-- (history: flyway_shipments_history, beside the outbox's flyway_schema_history).
CREATE TABLE shipments (
    order_id        UUID PRIMARY KEY,
    carrier         TEXT NOT NULL CHECK (length(carrier) BETWEEN 1 AND 100),
    tracking_number TEXT NOT NULL CHECK (length(tracking_number) BETWEEN 1 AND 100),
    shipped_at      TIMESTAMPTZ NOT NULL,
    message_id      TEXT NOT NULL,
    recorded_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
