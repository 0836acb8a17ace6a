-- Wake idle relays as soon as a transaction that wrote outbox rows commits, instead of at the end
-- of their poll interval. A statement-level trigger, so it covers every writer of the outbox. All
-- notifications carry the same channel and an empty payload, and PostgreSQL delivers identical
-- notifications of one transaction once: one wake-up per business transaction however many rows
-- or statements it wrote, sent at commit and never for a rolled-back transaction.
-- The notification is a hint only: a relay that misses one finds the rows at its next poll.
CREATE FUNCTION outbox_notify_pending() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_pending', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER message_outbox_notify_pending
    AFTER INSERT ON message_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify_pending();
