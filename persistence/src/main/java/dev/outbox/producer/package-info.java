/**
 * The outbox's public write-side API: {@link dev.outbox.producer.Outbox} records a message in the
 * caller's transaction, {@link dev.outbox.producer.OutboxPersistence} sets the schema and the
 * MyBatis-Guice module up. Everything a producing service needs is in this package (with the
 * message types of {@code dev.outbox.domain.event}); the implementation lives in
 * {@code dev.outbox.persistence} and may change.
 */
package dev.outbox.producer;
