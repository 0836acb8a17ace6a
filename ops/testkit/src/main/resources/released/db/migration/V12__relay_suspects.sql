-- Suspects (issue 21): a row given back because the relay holding it died (last_error_code
-- RELAY_DIED) may be what killed it, or may only have been in the same batch. Until it has been
-- published once on its own it is a suspect: ordinary claims skip it, and a relay claims suspects
-- one at a time, holding nothing else, so that a death while it holds one is evidence against that
-- row alone (relay-worker's SuspectIsolation, RelayRegistryMapper.releaseHeldBy). This index finds
-- the due suspects without walking the pending index; it is empty while no relay has died.
CREATE INDEX IF NOT EXISTS message_outbox_suspect_idx
    ON message_outbox (next_attempt_at, created_at)
    WHERE last_error_code = 'RELAY_DIED' AND status IN ('PENDING', 'RETRYABLE_FAILED');
