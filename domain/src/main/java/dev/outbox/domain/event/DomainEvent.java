package dev.outbox.domain.event;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * Something that happened to an aggregate. {@link #payload()} is the message body as a JSON-ready
 * tree (strings, numbers, booleans, lists, maps, null) so that the domain needs no JSON library;
 * the persistence layer serialises it once, validates it against {@link MessageContract}, and
 * stores that exact snapshot in the outbox.
 */
public sealed interface DomainEvent permits OrderCreated, PaymentCaptured, OrderCancelled, PaymentRefunded {
    EventType type();

    String aggregateType();

    UUID aggregateId();

    /** The aggregate's version after this event: gapless, starting at 1. */
    long aggregateVersion();

    Instant occurredAt();

    Map<String, Object> payload();
}
