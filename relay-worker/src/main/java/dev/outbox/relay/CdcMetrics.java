package dev.outbox.relay;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The CDC stream's metrics: whether it reads, how far behind it is, what it left to polling. */
final class CdcMetrics {
    private CdcMetrics() {}

    static void register(PrometheusMeterRegistry registry, CdcRelay cdc) {
        Gauge.builder("outbox.relay.cdc.reading", cdc, c -> c.reading() ? 1 : 0)
                .description("1 while this relay reads the replication slot; 0 on a standby or while reconnecting")
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.relay.cdc.slot.lag.bytes", cdc, CdcRelay::lagBytes)
                .description("WAL the server keeps for the relay's slot: written since its confirmed position")
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.relay.cdc.lag.seconds", cdc, CdcRelay::lagSeconds)
                .description("age of the newest tick the stream has settled: how far the stream is behind")
                .strongReference(true)
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.rows.streamed", cdc, CdcRelay::streamed)
                .description("inserted outbox rows read from the slot")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.rows.left.to.retry.path", cdc, CdcRelay::leftToRetryPath)
                .description("streamed rows left PENDING for the polling retry path (held, in doubt, not due)")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.slots.recreated", cdc, CdcRelay::slotsRecreated)
                .description("times the slot was found invalidated (max_slot_wal_keep_size) and created again")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.streams.opened", cdc, CdcRelay::streamsOpened)
                .description("streams this relay opened on the slot; growing while it reads means it keeps losing it")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.marks.deferred", cdc, CdcRelay::marksDeferred)
                .description("outcomes written again because the row's commit came through the slot before"
                        + " it was visible to other sessions")
                .register(registry);
    }
}
