-- A service of the earlier releases kept its own scripts in Flyway's default location beside the
-- outbox's, numbered past them, so that both landed in flyway_schema_history.
CREATE TABLE service_notes (
    id   BIGINT PRIMARY KEY,
    body TEXT   NOT NULL
);
