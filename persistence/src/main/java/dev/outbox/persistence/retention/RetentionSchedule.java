package dev.outbox.persistence.retention;

import dev.outbox.persistence.DataAccessException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link RetentionRun} every {@link RetentionPolicy#interval()}: the relay for the product's
 * tables, a consumer process for the tables its registration names. Every process of a kind
 * schedules it; the advisory lock inside {@link RetentionRun} lets one pass run at a time.
 */
public final class RetentionSchedule implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionSchedule.class);

    private final RetentionRun run;
    private final RetentionPolicy policy;
    private final MeterRegistry registry;
    private final ScheduledExecutorService executor;

    /** {@code owner} names the thread ({@code <owner>-retention}) and the log lines. */
    public RetentionSchedule(String owner, RetentionRun run, RetentionPolicy policy, MeterRegistry registry) {
        this.run = run;
        this.policy = policy;
        this.registry = registry;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, owner + "-retention");
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        executor.scheduleWithFixedDelay(
                this::runOnce,
                policy.initialDelay().toMillis(),
                policy.interval().toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info(
                "retention of {} every {} s (outbox age {} h, processed age {} h, batches of {})",
                run.tables(),
                policy.interval().toSeconds(),
                policy.outboxAge().toHours(),
                policy.processedAge().toHours(),
                policy.batchSize());
    }

    private void runOnce() {
        try {
            RetentionRun.Result result = run.run(policy);
            if (!result.ran()) {
                return;
            }
            for (Map.Entry<String, Long> e : result.deleted().entrySet()) {
                Counter.builder("outbox.retention.deleted")
                        .tag("table", e.getKey())
                        .description("rows deleted by retention")
                        .register(registry)
                        .increment(e.getValue());
            }
            if (result.total() > 0) {
                LOG.info("retention deleted {}", result.deleted());
            }
        } catch (DataAccessException e) {
            LOG.warn("retention skipped this time: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // a scheduled task that throws is never run again: retention must survive anything
            LOG.error("retention failed; it runs again at its next interval", e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
