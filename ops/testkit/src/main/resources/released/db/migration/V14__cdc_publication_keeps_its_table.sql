-- A publication belongs to the database, not to the schema: when message_outbox is dropped and
-- created again (a schema dropped and migrated anew, as ops/bench's fresh runs do), V13's
-- publication survives without its table, V13 itself skips it (it exists), and a CDC relay then
-- streams nothing at all. Put the table back when it is missing; the relay also checks at start.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication_tables
                    WHERE pubname = 'outbox_inserts'
                      AND schemaname = current_schema()
                      AND tablename = 'message_outbox') THEN
        ALTER PUBLICATION outbox_inserts ADD TABLE message_outbox;
    END IF;
END
$$;
