package dev.outbox.persistence.consumer;

/** A message kept by a consumer until its aggregate's earlier versions are applied. */
public record HeldMessage(
        String consumerName,
        String aggregateType,
        String aggregateId,
        long aggregateVersion,
        String messageId,
        String messageType,
        int messageVersion,
        String correlationId,
        String headers,
        byte[] body) {}
