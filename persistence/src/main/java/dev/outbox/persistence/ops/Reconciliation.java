package dev.outbox.persistence.ops;

import java.time.Instant;
import java.util.UUID;

/**
 * What the reconciliation check looks for, one record type per finding (the operator API's answer
 * is its own view of them, {@code OpsOverviewViews} in {@code outbox-ops-views}).
 */
public final class Reconciliation {
    private Reconciliation() {}

    /** An order whose latest version has no outbox row: its event was never recorded. */
    public record OrderMissingEvent(UUID orderId, long orderVersion, Long lastOutboxVersion) {}

    /** A row leased for longer than the lease: its relay is gone or stuck. */
    public record ExpiredLease(UUID id, String messageType, String lockedBy, Instant lockedAt, int attemptCount) {}

    /**
     * A consumer holding later versions of an aggregate while the version it needs has not come
     * (for example an operator cancelled it): the consumer will wait until someone acts.
     */
    public record WaitingConsumer(
            String consumerName,
            String aggregateType,
            String aggregateId,
            long waitingForVersion,
            long held,
            Instant heldSince) {}

    /** An aggregate whose pending versions wait behind a parked one. */
    public record BlockedAggregate(
            String aggregateType,
            String aggregateId,
            UUID parkedId,
            long parkedVersion,
            String errorCode,
            long waiting) {}
}
