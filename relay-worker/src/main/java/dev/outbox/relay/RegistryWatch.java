package dev.outbox.relay;

import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the relay's {@link RelayContracts} equal to the registry: reads it once at start (before
 * the relay claims its first row), then again whenever a registration's notification arrives
 * ({@code outbox_registry}, through the relay's LISTEN connection) and at least every {@code
 * OUTBOX_RELAY_REGISTRY_POLL}. Each look is one short digest query; the contracts are read and
 * parsed only when the digest changed. While the database cannot be read, the relay goes on with
 * what it last knew.
 *
 * <p>Each look also makes rows parked {@code CONTRACT_UNKNOWN} due again once a contract for their
 * type is known: a producer that registers late loses nothing and needs no operator. Every look,
 * not only a changed one: a row the relay judged with the catalogue of a moment before a
 * registration may be parked just after it (one index scan of the parked rows with that code).
 */
final class RegistryWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryWatch.class);

    /** How long {@link #close} waits for the watching thread (one look may be in a statement). */
    static final Duration CLOSE_WAIT = PendingListener.CLOSE_WAIT;

    private final MessageRegistry registry;
    private final RelayContracts contracts;
    private final Function<Set<OutboxStore.TypeVersion>, Set<UUID>> retryParked;
    private final TopologyHook topology;
    private final Duration poll;
    private final Thread thread;
    private final Object signal = new Object();
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private boolean signalled; // guarded by signal
    private String digest; // only the watching thread, after start
    private String queuesDigest; // likewise
    private volatile boolean running = true;

    /** What the relay does with the registry's topology when it changes: declare it (RelayTopology). */
    interface TopologyHook {
        /** Nothing: the relay does not declare topology ({@code OUTBOX_RELAY_DECLARE_TOPOLOGY=false}). */
        TopologyHook NONE = (contracts, queues) -> {};

        /** The contracts or the registered queues changed. */
        void changed(MessageContracts contracts, List<MessageRegistry.RegisteredQueue> queues);

        /** Every look, after any change: declare what is not declared yet, if it can. */
        default void look() {}
    }

    /** A watch of the contracts alone, for a relay that declares no topology. */
    RegistryWatch(
            MessageRegistry registry,
            RelayContracts contracts,
            Duration poll,
            Function<Set<OutboxStore.TypeVersion>, Set<UUID>> retryParked) {
        this(registry, contracts, poll, retryParked, TopologyHook.NONE);
    }

    /**
     * @param retryParked makes rows parked {@code CONTRACT_UNKNOWN} whose type and version are one of those given
     *     due again, returning their ids
     * @param topology told the contracts and the registered queues whenever either changed
     */
    RegistryWatch(
            MessageRegistry registry,
            RelayContracts contracts,
            Duration poll,
            Function<Set<OutboxStore.TypeVersion>, Set<UUID>> retryParked,
            TopologyHook topology) {
        this.registry = registry;
        this.contracts = contracts;
        this.retryParked = retryParked;
        this.topology = topology;
        this.poll = poll;
        this.thread = new Thread(this::run, "relay-registry");
        this.thread.setDaemon(true);
    }

    /**
     * Reads the registry, then watches it. A relay that cannot read the registry at start does not
     * start: the table is missing when this release's migrations have not run, and publishing
     * without the contracts would send what the registry would have parked.
     */
    void start() {
        reload();
        LOG.info("relay knows {}", contracts.summary());
        // the parked rows at the watch's first look, not here: that write may wait on a lock, and
        // the relay's start must not (a relay starting while a migration holds the table, say)
        changed();
        thread.start();
    }

    /** A registration changed: look now rather than at the next poll. */
    void changed() {
        synchronized (signal) {
            signalled = true;
            signal.notifyAll();
        }
    }

    /** Times the registry was read and applied (the first at start included). */
    long reloads() {
        return reloads.get();
    }

    /** Looks that failed (the database unreachable, say); the relay kept what it knew. */
    long failures() {
        return failures.get();
    }

    /** Rows parked {@code CONTRACT_UNKNOWN} made due again because their type became known. */
    long retried() {
        return retried.get();
    }

    /**
     * Reads the registry when its digest differs from the last applied, then makes the rows parked
     * for want of a contract that is now known due again.
     */
    void refresh() {
        reload();
        topology.look();
        // the registry's types only: a type on this relay's classpath alone would be made due here and
        // parked again by a relay without it, and so on at every look
        Set<UUID> due = retryParked.apply(contracts.registeredTypes());
        if (!due.isEmpty()) {
            retried.addAndGet(due.size());
            LOG.info(
                    "{} row(s) parked CONTRACT_UNKNOWN are due again: a contract for their type is known now",
                    due.size());
        }
    }

    /** Reads the registry when its digest differs from the last applied. */
    private void reload() {
        String now = registry.contractsDigest();
        boolean contractsChanged = !now.equals(digest);
        if (contractsChanged) {
            contracts.apply(registry.contracts());
            digest = now;
            reloads.incrementAndGet();
        }
        if (topology == TopologyHook.NONE) {
            return;
        }
        // a contract changes the topology too: its exchange, and the queues bound to "contracts"
        String queuesNow = registry.queuesDigest();
        if (contractsChanged || !queuesNow.equals(queuesDigest)) {
            topology.changed(contracts.current(), registry.queues());
            queuesDigest = queuesNow;
        }
    }

    private void run() {
        long failed = 0;
        while (running) {
            try {
                synchronized (signal) {
                    long deadline = System.nanoTime() + poll.toNanos();
                    long left;
                    while (!signalled && running && (left = deadline - System.nanoTime()) > 0) {
                        signal.wait(Math.max(1, left / 1_000_000));
                    }
                    signalled = false;
                }
                if (!running) {
                    return;
                }
                refresh();
                if (failed > 0) {
                    LOG.info("reading the registry again after {} failure(s)", failed);
                    failed = 0;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable e) { // NOPMD: the loop boundary; an Error must not end the watch unseen
                failures.incrementAndGet();
                if (failed++ == 0) {
                    // once per outage: the relay goes on with the contracts it knows
                    LOG.warn("cannot read the registry; checking rows against what the relay knew: {}", e.getMessage());
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(CLOSE_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
