package dev.outbox.relay;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.Failure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** The relay's log lines about one row: its ids in the MDC, and a failed attempt said as retry or park. */
final class RowLog {
    /** The recorder's logger: these lines were always its, and log filters name it. */
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeRecorder.class);

    private RowLog() {}

    static void logFailure(OutboxRecord row, Failure f) {
        withRow(row, () -> {
            if (f.park()) {
                LOG.error(
                        "parked message_id={} {} after {} attempt(s): {} {}",
                        row.id(),
                        row.messageType(),
                        row.attemptCount(),
                        f.code(),
                        f.message());
            } else {
                LOG.warn(
                        "attempt {} of message_id={} {} failed: {} {}; retry in {} ms",
                        row.attemptCount(),
                        row.id(),
                        row.messageType(),
                        f.code(),
                        f.message(),
                        f.delay().toMillis());
            }
        });
    }

    static void withRow(OutboxRecord row, Runnable log) {
        MDC.put("message_id", row.id().toString());
        MDC.put("aggregate_id", row.aggregateId());
        if (row.correlationId() != null) {
            MDC.put("correlation_id", row.correlationId());
        }
        try {
            log.run();
        } finally {
            MDC.remove("message_id");
            MDC.remove("aggregate_id");
            MDC.remove("correlation_id");
        }
    }
}
