-- the runtime's test consumer's own table, applied by the runtime (history: flyway_runtime_test_history)
CREATE TABLE runtime_test_effects (
    message_id   TEXT PRIMARY KEY,
    message_type TEXT NOT NULL,
    applied_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
