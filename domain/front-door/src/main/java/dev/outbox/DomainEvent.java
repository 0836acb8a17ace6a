package dev.outbox;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * Something that happened to an aggregate. {@link #payload()} is the message body as a JSON-ready
 * tree (strings, numbers, booleans, lists, maps, null) so that the domain needs no JSON library;
 * the outbox serialises it once, checks it against the contract of {@link #type()} and stores
 * that exact snapshot. Adding an event type is this class and its contract file; nothing lists
 * the types.
 */
public interface DomainEvent {
    MessageType type();

    String aggregateType();

    UUID aggregateId();

    /** The aggregate's version after this event: gapless, starting at 1. */
    long aggregateVersion();

    Instant occurredAt();

    Map<String, Object> payload();
}
