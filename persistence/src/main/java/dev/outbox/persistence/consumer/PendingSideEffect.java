package dev.outbox.persistence.consumer;

import java.time.Instant;

/** An external call that was started and never recorded as done: a message to repair by hand. */
public record PendingSideEffect(String consumerName, String messageId, String effect, Instant startedAt) {}
