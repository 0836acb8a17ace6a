package dev.outbox.relay;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.cdc.CdcStore;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Per-aggregate order on the CDC stream: the stream sees versions in commit order, and sends a
 * version only once the one before it was confirmed (in this stream) or the database says no
 * earlier version is unfinished; a version behind one that failed, or behind a transaction too
 * large to hold, is left to the retry path, which claims in order. It decides, for a committed
 * transaction's rows, which go now, which wait behind a version in flight and which are left
 * {@code PENDING}, and, as each row settles, whether the next version of its aggregate goes. It
 * owns what each aggregate waits for; one per stream, stream thread only.
 */
final class CdcAggregateOrder {
    /** Recently confirmed versions, so a successor rarely needs the database's word. */
    private static final int REMEMBERED_AGGREGATES = 100_000;

    private final RelayConfig relayConfig;
    private final CdcStore store;
    private final CdcCounters counters;
    private final CdcRecorder recorder;
    private final CdcSender sender;
    private final CdcKeepAlive keepAlive;
    private final BooleanSupplier running;

    /** Per aggregate, its versions in flight (the first) and those waiting behind it. */
    private final Map<String, ArrayDeque<CdcRow>> waiting = new HashMap<>();

    private final Map<String, Long> confirmedVersions = new LinkedHashMap<>(1_024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED_AGGREGATES;
        }
    };
    /** Aggregates whose last version the stream left to the retry path, with that row's id. */
    private final Map<String, UUID> blocked = new HashMap<>();
    /** Aggregates with versions in flight when a transaction too large to hold was left to the retry path. */
    private final Set<String> untrusted = new HashSet<>();

    CdcAggregateOrder(
            RelayConfig relayConfig,
            CdcStore store,
            CdcCounters counters,
            CdcRecorder recorder,
            CdcSender sender,
            CdcKeepAlive keepAlive,
            BooleanSupplier running) {
        this.relayConfig = relayConfig;
        this.store = store;
        this.counters = counters;
        this.recorder = recorder;
        this.sender = sender;
        this.keepAlive = keepAlive;
        this.running = running;
    }

    /** Decides, for a committed transaction's rows, which go now, which wait, which are left. */
    void admit(List<CdcRow> rows) throws InterruptedException, SQLException {
        List<CdcRow> ask = new ArrayList<>();
        List<CdcRow> go = new ArrayList<>();
        for (CdcRow row : rows) {
            counters.streamed.incrementAndGet();
            OutboxRecord rec = row.record;
            if (!rec.is(OutboxStatus.PENDING)
                    || (rec.nextAttemptAt() != null && rec.nextAttemptAt().isAfter(Instant.now()))) {
                // written as something else than a fresh row (a status a newer version added among
                // them: never published by this version), or not due: not the stream's
                if (orderedRow(rec) && waiting.containsKey(row.key())) {
                    // a later version queued behind the one in flight must not pass this one: once
                    // that settles, the versions behind it go to the retry path, whose claim orders
                    // them by what the table holds
                    untrusted.add(row.key());
                }
                leave(row);
                continue;
            }
            if (!orderedRow(rec)) {
                go.add(row);
                continue;
            }
            String key = row.key();
            ArrayDeque<CdcRow> queue = waiting.get(key);
            if (queue != null) {
                queue.add(row); // behind a version in flight
                continue;
            }
            Long confirmed = confirmedVersions.get(key);
            if (!blocked.containsKey(key)
                    && (rec.aggregateVersion() == 1L || confirmed != null && confirmed == rec.aggregateVersion() - 1)) {
                waiting.computeIfAbsent(key, k -> new ArrayDeque<>()).add(row);
                go.add(row);
            } else {
                ask.add(row);
            }
        }
        if (!ask.isEmpty()) {
            List<UUID> leftBehind = new ArrayList<>(ask.size());
            for (CdcRow row : ask) {
                leftBehind.add(blocked.get(row.key()));
            }
            Set<Integer> held = store.heldBehindEarlierVersions(
                    ask.stream().map(r -> r.record).toList(), leftBehind);
            for (int i = 0; i < ask.size(); i++) {
                CdcRow row = ask.get(i);
                String key = row.key();
                if (held.contains(i) || waiting.containsKey(key)) {
                    if (waiting.containsKey(key)) {
                        waiting.get(key).add(row);
                    } else {
                        leave(row);
                    }
                } else {
                    blocked.remove(key);
                    waiting.computeIfAbsent(key, k -> new ArrayDeque<>()).add(row);
                    go.add(row);
                }
            }
        }
        for (CdcRow row : go) {
            keepAlive.keepAlive();
            sender.send(row);
        }
    }

    /** Takes in a row the recorder settled; the next version of its aggregate goes, or is left. */
    void settled(CdcRow row, boolean confirmed) throws InterruptedException, SQLException {
        String key = orderedRow(row.record) ? row.key() : null;
        if (key != null) {
            if (confirmed) {
                confirmedVersions.put(key, row.record.aggregateVersion());
            } else {
                blocked.put(key, row.record.id());
            }
            ArrayDeque<CdcRow> queue = waiting.get(key);
            if (queue != null && queue.peek() == row) {
                // this row was in flight; the next version of the aggregate goes (or waits with it)
                queue.poll();
                // a transaction too large to hold went to the retry path meanwhile: it may hold
                // the version between this one and the next, which memory cannot tell
                boolean distrusted = untrusted.remove(key);
                if (queue.isEmpty()) {
                    waiting.remove(key);
                } else if (!confirmed || distrusted) {
                    for (CdcRow behind : queue) {
                        leave(behind);
                    }
                    waiting.remove(key);
                } else if (running.getAsBoolean()) {
                    sender.send(queue.peek());
                }
            }
        }
    }

    /**
     * A transaction too large to hold was left to the retry path: the aggregates with versions in
     * flight now cannot trust memory for their next version.
     */
    void distrustInFlight() {
        untrusted.addAll(waiting.keySet());
    }

    /** Leaves a row PENDING for the retry path: nothing to write, settled as far as the stream goes. */
    private void leave(CdcRow row) {
        counters.leftToRetryPath.incrementAndGet();
        recorder.leftPending(row);
    }

    /** Whether the row takes its turn in its aggregate's order (a version, of an ordered type). */
    private boolean orderedRow(OutboxRecord r) {
        return r.aggregateVersion() != null && !relayConfig.unorderedTypes().contains(r.messageType());
    }
}
