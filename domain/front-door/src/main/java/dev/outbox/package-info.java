/**
 * The outbox's front door, write side: {@link dev.outbox.Outbox} records a message in the caller's
 * transaction, {@link dev.outbox.OutboxPersistence} sets the schema and the MyBatis-Guice module
 * up; {@link dev.outbox.MessageType}, {@link dev.outbox.Aggregate}, {@link dev.outbox.MessageContext}
 * and {@link dev.outbox.DomainEvent} say what a message is; {@link dev.outbox.OutboxException} is
 * everything thrown on purpose. The consumer side is {@code dev.outbox.consumer}. A service
 * compiles against these two packages only (module {@code outbox-front-door}); the
 * implementations are found at run time and may change.
 */
package dev.outbox;
