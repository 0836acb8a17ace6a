package dev.outbox.api.ops;

import dev.outbox.persistence.ops.Reconciliation.OrderMissingEvent;
import java.util.List;

/**
 * The service's own part of the reconcile report: its business rows whose latest version has no
 * outbox row, so their event was never recorded. Only the service knows its tables; the outbox's
 * reconciliation reads none of them. The order service's is {@code OrderMissingEvents}, bound in
 * {@code ApiModule}.
 */
public interface MissingEventsCheck {
    /** At most {@code limit} findings, oldest change first. */
    List<OrderMissingEvent> missingEvents(int limit);
}
