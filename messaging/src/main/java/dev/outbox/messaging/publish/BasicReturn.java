package dev.outbox.messaging.publish;

/**
 * A {@code basic.return}: the broker's word that a {@code mandatory} message reached no queue,
 * with its reply code and text ({@link FailureClassifier#classifyReturn} makes an error code of
 * the reply code).
 */
record BasicReturn(int replyCode, String replyText) {}
