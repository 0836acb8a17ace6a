package dev.outbox.bench;

import com.rabbitmq.client.Connection;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.OutboundMessage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * P: the plain batch relay most teams write first, as a baseline the project's relay must at
 * least match. Two threads, each in a loop of one transaction: select up to 500 pending rows
 * {@code FOR UPDATE SKIP LOCKED} in due order, publish them all through the project's
 * {@link ConfirmPublisher} (a window of one batch), wait for
 * the batch's confirms, mark them {@code PUBLISHED} by id, commit. No per-aggregate order, no
 * lease or fencing (the row locks are held across the broker round trip instead), no failure
 * classification: one update per row where the project's relay makes two (claim, then a fenced
 * mark), which is what makes it a hard baseline. It sends what any relay of this product must
 * send: the contract's messages, built by the same {@link AmqpMessageMapper} as A and R (the wire
 * format of CONTRACT.md, headers included), so the broker's work per message is the same in all three.
 */
final class PlainRelay {
    static final int THREADS = 2;
    static final int BATCH = 500;

    private PlainRelay() {}

    static Throughput run(BenchEnv env, List<NewOutboxMessage> events, boolean fresh) throws Exception {
        env.startFrom(fresh, events);
        long total = events.size();
        AtomicLong published = new AtomicLong();
        CpuMeter.Snapshot cpu = CpuMeter.take(java.util.Set.of());
        List<Connection> connections = new ArrayList<>();
        List<java.sql.Connection> databases = new ArrayList<>();
        double seconds;
        Map<String, Double> cpuPerRow;
        try {
            for (int t = 0; t < THREADS; t++) {
                connections.add(env.broker.connectionFactory().newConnection("bench-plain-" + t));
                databases.add(env.connect());
            }
            seconds = Parallel.run("bench-plain", THREADS, t -> {
                java.sql.Connection db = databases.get(t);
                try (PreparedStatement select = db.prepareStatement("SELECT id, aggregate_type, aggregate_id,"
                                + " aggregate_version, message_type, message_version, exchange_name, routing_key,"
                                + " payload::text, headers::text, created_at, correlation_id, causation_id, trace_id,"
                                + " tenant_id FROM message_outbox WHERE status = 'PENDING' ORDER BY created_at LIMIT "
                                + BATCH + " FOR UPDATE SKIP LOCKED");
                        PreparedStatement mark = db.prepareStatement("UPDATE message_outbox SET status = 'PUBLISHED',"
                                + " published_at = now() WHERE id = ANY(?)")) {
                    // the project's publisher, a window of one batch: only the relay and the messaging
                    // module talk to the channel (SinglePublisherArchTest's rule holds here too)
                    Outcomes outcomes = new Outcomes();
                    ConfirmPublisher<String> ch = ConfirmPublisher.open(
                            connections.get(t), BATCH, BrokerConfig.DEFAULT_MAX_MESSAGE_BYTES, outcomes);
                    long sent = 0;
                    while (published.get() < total) {
                        List<UUID> ids = new ArrayList<>(BATCH);
                        try (ResultSet rs = select.executeQuery()) {
                            while (rs.next()) {
                                UUID id = (UUID) rs.getObject(1);
                                ids.add(id);
                                if (!ch.acquireSlot(Duration.ofSeconds(10))) {
                                    throw new IllegalStateException("no publishing slot within 10 s");
                                }
                                ch.publish(message(rs), id.toString());
                            }
                        }
                        if (ids.isEmpty()) {
                            db.rollback();
                            if (published.get() < total) {
                                Thread.sleep(1); // the other thread holds the rest
                            }
                            continue;
                        }
                        if (!ch.awaitSettled(Duration.ofSeconds(10))) {
                            throw new IllegalStateException("no confirm within 10 s for a batch of " + ids.size());
                        }
                        sent += ids.size();
                        outcomes.requireAllConfirmed(sent);
                        mark.setArray(1, db.createArrayOf("uuid", ids.toArray()));
                        int done = mark.executeUpdate();
                        db.commit();
                        if (done != ids.size()) {
                            throw new IllegalStateException("marked " + done + " of " + ids.size());
                        }
                        published.addAndGet(done);
                    }
                }
            });
            // before the connections close: a server process's CPU time ends with it
            cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(java.util.Set.of()), total);
        } finally {
            for (Connection c : connections) {
                c.close();
            }
            for (java.sql.Connection c : databases) {
                c.close();
            }
        }
        long rows = env.count("status = 'PUBLISHED'");
        if (rows != total) {
            throw new IllegalStateException(rows + " of " + total + " rows published");
        }
        return new Throughput(
                fresh ? "P fresh" : "P",
                "plain batch relay" + (fresh ? ", fresh database" : ""),
                THREADS + " threads, " + BATCH + " rows per transaction, wait for the batch's confirms",
                total,
                seconds,
                cpuPerRow);
    }

    /** The row as the contract's message, through the product's own mapper. */
    private static OutboundMessage message(ResultSet rs) throws java.sql.SQLException {
        java.time.Instant created = rs.getTimestamp(11).toInstant();
        OutboxRecord row = new OutboxRecord(
                (UUID) rs.getObject(1),
                rs.getString(2),
                rs.getString(3),
                (Long) rs.getObject(4),
                rs.getString(5),
                rs.getInt(6),
                rs.getString(7),
                rs.getString(8),
                rs.getString(9),
                rs.getString(10),
                OutboxStatus.PENDING.name(),
                0,
                created,
                null,
                null,
                created,
                null,
                null,
                null,
                null,
                rs.getString(12),
                rs.getString(13),
                rs.getString(14),
                rs.getString(15));
        if (!(AmqpMessageMapper.map(row) instanceof AmqpMessageMapper.Ready ready)) {
            throw new IllegalStateException("benchmark row does not map to a message: " + row.id());
        }
        return ready.message();
    }
}
