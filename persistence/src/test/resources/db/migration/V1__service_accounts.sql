-- An adopting service's own first script, in Flyway's default location and history.
CREATE TABLE service_accounts (
    id    BIGINT PRIMARY KEY,
    owner TEXT   NOT NULL
);
