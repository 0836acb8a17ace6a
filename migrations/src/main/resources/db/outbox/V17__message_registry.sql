-- The registry (issue 44): what producers and consumers say about their messages, kept where every
-- process can read it. The relay started from its own jar has no service's contracts or queue
-- files on its classpath; a producer registers its message contracts here at start, a consumer
-- its queue declarations, and a service that runs none of the outbox's code does the same with
-- outboxctl. Written only by registration, never by the relay.

-- One message type at one version: its JSON Schema as the producer's contract file has it
-- (contracts/<type>/v<version>.schema.json, the x-outbox block included), and the facts the relay
-- needs without parsing it (where it goes, how it is ordered). A contract, once registered, never
-- changes: the same document again is a no-op, a different one is refused, and a new version is
-- the way to change a message. jsonb, so that key order and spacing do not make two equal
-- documents differ.
CREATE TABLE outbox_message_contracts (
    message_type     TEXT        NOT NULL CHECK (message_type <> ''),
    message_version  INTEGER     NOT NULL CHECK (message_version >= 1),
    exchange_name    TEXT        NOT NULL CHECK (exchange_name <> ''),
    routing_key      TEXT        NOT NULL CHECK (routing_key <> ''),
    aggregate_type   TEXT        NOT NULL CHECK (aggregate_type <> ''),
    ordered          BOOLEAN     NOT NULL,
    schema_document  JSONB       NOT NULL CHECK (jsonb_typeof(schema_document) = 'object'),
    registered_by    TEXT        NOT NULL CHECK (registered_by <> ''),
    registered_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (message_type, message_version)
);

-- One consumer queue as its topology file declares it (topology/<queue>.queue.json: bindings,
-- arguments, dead-letter queue, delivery limits), kept as written: "routingKeys": "contracts" stays
-- unexpanded, so a contract registered later on the exchange binds too. A consumer's next release
-- may change its bindings, so a different declaration replaces the last one and counts a revision.
CREATE TABLE outbox_queue_declarations (
    queue_name     TEXT        PRIMARY KEY CHECK (queue_name <> ''),
    consumer_name  TEXT        NOT NULL CHECK (consumer_name <> ''),
    declaration    JSONB       NOT NULL CHECK (jsonb_typeof(declaration) = 'object'),
    revision       INTEGER     NOT NULL DEFAULT 1 CHECK (revision >= 1),
    registered_by  TEXT        NOT NULL CHECK (registered_by <> ''),
    registered_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Readers (the relay) hear of a change at once instead of at their next poll. One notification per
-- registering transaction, at commit; registrations are rare, so the commit serialisation that
-- V6 measured for the outbox's own inserts costs nothing here. Only a hint: a reader that misses
-- it finds the change at its next read.
CREATE FUNCTION outbox_registry_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_registry', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER outbox_message_contracts_changed
    AFTER INSERT OR UPDATE OR DELETE ON outbox_message_contracts
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_registry_changed();

CREATE TRIGGER outbox_queue_declarations_changed
    AFTER INSERT OR UPDATE OR DELETE ON outbox_queue_declarations
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_registry_changed();
