-- UNENCODABLE: a row that can never become an AMQP message (a property over the protocol's
-- 255-byte short-string limit, a header value the protocol has no type for, headers over the
-- connection's frame size, a body over the broker's message size limit). Parked with a message
-- naming the field; it never reaches basicPublish. NOT VALID, as in V7: every existing row passed
-- the narrower list, and validating would scan the outbox under an exclusive lock.
ALTER TABLE message_outbox DROP CONSTRAINT message_outbox_last_error_code_check;
ALTER TABLE message_outbox ADD CONSTRAINT message_outbox_last_error_code_check
    CHECK (last_error_code IN ('BROKER_UNAVAILABLE', 'CONNECTION_LOST', 'CONFIRM_TIMEOUT', 'NACKED',
                               'UNROUTABLE', 'EXCHANGE_NOT_FOUND', 'ACCESS_REFUSED', 'CHANNEL_ERROR',
                               'PAYLOAD_INVALID', 'STALE_LOCK', 'OPERATOR', 'RELAY_DIED',
                               'UNENCODABLE')) NOT VALID;
