-- The operator surface: an audit trail of every repair, and indexes that keep searches, metrics
-- gauges and retention cheap however large the published history grows.

CREATE TABLE ops_audit (
    id            BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor         TEXT        NOT NULL CHECK (actor <> ''),
    role          TEXT        NOT NULL CHECK (role IN ('operator', 'read-only')),
    action        TEXT        NOT NULL CHECK (action IN ('RETRY', 'BULK_RETRY', 'CANCEL', 'REPLAY', 'REPLAY_AGGREGATE',
                                                         'RELEASE_LEASE')),
    message_ids   UUID[]      NOT NULL DEFAULT '{}',
    filter        JSONB,
    reason        TEXT,
    affected      INTEGER     NOT NULL CHECK (affected >= 0)
);

CREATE INDEX ops_audit_message_ids_idx ON ops_audit USING gin (message_ids);

-- keyset pagination of searches: newest first, (created_at, id) as the cursor
CREATE INDEX message_outbox_created_idx ON message_outbox (created_at DESC, id DESC);

-- "was this event sent?" starts from what the caller has: a correlation id or a tenant
CREATE INDEX message_outbox_correlation_idx ON message_outbox (correlation_id) WHERE correlation_id IS NOT NULL;
CREATE INDEX message_outbox_tenant_idx ON message_outbox (tenant_id, created_at) WHERE tenant_id IS NOT NULL;

-- gauges: parked rows by error code, without touching published history
CREATE INDEX message_outbox_parked_idx ON message_outbox (last_error_code) WHERE status = 'PARKED';

-- retention and "published in the last hour": finished rows by the time they finished
ALTER TABLE message_outbox ADD COLUMN cancelled_at TIMESTAMPTZ;
ALTER TABLE message_outbox ADD CONSTRAINT message_outbox_cancelled_has_time
    CHECK ((status = 'CANCELLED') <= (cancelled_at IS NOT NULL)) NOT VALID;
CREATE INDEX message_outbox_published_at_idx ON message_outbox (published_at) WHERE status = 'PUBLISHED';
CREATE INDEX message_outbox_cancelled_at_idx ON message_outbox (cancelled_at) WHERE status = 'CANCELLED';
