package dev.outbox.chaos;

import dev.outbox.chaos.FaultPlan.Fault;
import dev.outbox.chaos.FaultPlan.Kind;
import dev.outbox.chaos.Fleet.Slot;
import dev.outbox.testkit.TcpProxy;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Injects the planned faults at their offsets, each on a thread of its own so that they overlap,
 * and records what each did. For a killed or paused relay it reads the rows the relay had leased
 * at that moment and watches until every one is {@code PUBLISHED}: the recovery time of a dead
 * relay's work.
 */
final class Faults {
    /** A fault as it happened; {@code outcome} says what it hit, or why it was skipped. */
    record Done(Fault fault, double startSeconds, double endSeconds, boolean injected, String outcome) {}

    /**
     * A relay's leased rows at its death (or pause): how long until none was still under that relay's
     * lease (taken back by another relay, or by itself after a restart), and until all were published.
     * Publishing needs a broker, so the second includes any broker outage that overlapped.
     */
    record LeaseRecovery(
            Kind kind,
            String relay,
            double atSeconds,
            int rows,
            double takenBackSeconds,
            double seconds,
            boolean recovered) {}

    /** The rows a relay holds and the lease token of each: a row is taken back once its token is gone. */
    record Held(List<String> ids, List<Long> tokens) {
        static final Held NONE = new Held(List.of(), List.of());

        int size() {
            return ids.size();
        }

        boolean isEmpty() {
            return ids.isEmpty();
        }
    }

    /** When backends of the API were terminated: a 503 near such a moment is expected. */
    record Window(long fromMillis, long toMillis) {}

    private final ChaosEnv env;
    private final Fleet fleet;
    private final TcpProxy proxy;
    private final long startNanos;
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(16, r -> {
        Thread t = new Thread(r, "chaos-fault");
        t.setDaemon(true);
        return t;
    });
    final ConcurrentLinkedQueue<Done> done = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<LeaseRecovery> recoveries = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Window> databaseOutages = new ConcurrentLinkedQueue<>();
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger latencies = new AtomicInteger();
    private final AtomicInteger cuts = new AtomicInteger();
    private volatile boolean stopping;
    private final java.util.concurrent.atomic.AtomicBoolean nodeDown = new java.util.concurrent.atomic.AtomicBoolean();

    Faults(ChaosEnv env, Fleet fleet, TcpProxy proxy, long startNanos) {
        this.env = env;
        this.fleet = fleet;
        this.proxy = proxy;
        this.startNanos = startNanos;
        // at the end, faults not yet started are dropped; those under way end their own outage
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    void schedule(FaultPlan plan, long loadStartNanos) {
        for (Fault f : plan.faults()) {
            long delay = loadStartNanos + f.at().toNanos() - System.nanoTime();
            scheduler.schedule(() -> run(f), Math.max(0, delay), TimeUnit.NANOSECONDS);
        }
    }

    private void run(Fault f) {
        if (stopping) {
            return;
        }
        active.incrementAndGet();
        double start = seconds();
        try {
            String outcome = inject(f);
            done.add(new Done(f, start, seconds(), outcome != null, outcome != null ? outcome : "skipped"));
            System.out.printf("[chaos] %6.1fs %-16s %s%n", start, f.kind(), outcome != null ? outcome : "skipped");
        } catch (Exception e) {
            done.add(new Done(f, start, seconds(), false, "failed: " + e));
            System.out.printf("[chaos] %6.1fs %-16s failed: %s%n", start, f.kind(), e);
        } finally {
            active.decrementAndGet();
        }
    }

    /** Performs one fault; null when its target was busy with another fault. */
    private String inject(Fault f) throws Exception {
        switch (f.kind()) {
            case KILL_RELAY, KILL_CONSUMER, KILL_API -> {
                Fleet.Kind kind = f.kind() == Kind.KILL_RELAY
                        ? Fleet.Kind.RELAY
                        : f.kind() == Kind.KILL_API ? Fleet.Kind.API : Fleet.Kind.CONSUMER;
                Slot s = lockOne(kind, f.target());
                if (s == null) {
                    return null;
                }
                try {
                    String detail;
                    if (kind == Fleet.Kind.RELAY) {
                        // frozen first, so the rows it leases are exactly the ones it holds when it dies
                        Held leased = Held.NONE;
                        try {
                            leased = freezeHoldingLeases(s);
                        } finally {
                            s.kill();
                        }
                        watchRecovery(Kind.KILL_RELAY, s.relayId(), leased);
                        detail = "killed " + s.name + " (" + s.relayId() + ", " + leased.size() + " leased rows)";
                    } else {
                        s.kill();
                        detail = "killed " + s.name;
                    }
                    pause(f.length());
                    s.start(f.freshId());
                    s.awaitReady(Duration.ofSeconds(60));
                    return detail + ", down " + f.length().toMillis() + " ms, restarted"
                            + (kind == Fleet.Kind.RELAY ? " as " + s.relayId() : "");
                } finally {
                    s.lock.unlock();
                }
            }
            case PAUSE_RELAY -> {
                Slot s = lockOne(Fleet.Kind.RELAY, f.target());
                if (s == null) {
                    return null;
                }
                try {
                    Held leased;
                    try {
                        leased = freezeHoldingLeases(s);
                        watchRecovery(Kind.PAUSE_RELAY, s.relayId(), leased);
                        pause(f.length());
                    } finally {
                        s.signal("CONT");
                    }
                    return "paused " + s.name + " for " + f.length().toMillis() + " ms holding " + leased.size()
                            + " leased rows";
                } finally {
                    s.lock.unlock();
                }
            }
            case BROKER_RESTART -> {
                ChaosEnv.rabbitmqctl("stop_app");
                try {
                    pause(f.length());
                } finally {
                    ChaosEnv.rabbitmqctl("start_app");
                    ChaosEnv.rabbitmqctl("await_startup");
                }
                return "broker stopped for " + f.length().toMillis() + " ms";
            }
            case CLOSE_CONNECTION -> {
                List<String> pids = new ArrayList<>();
                for (String line : ChaosEnv.rabbitmqctl("list_connections", "pid", "vhost", "client_properties")
                        .lines()
                        .toList()) {
                    String[] cols = line.split("\t", 3);
                    if (cols.length == 3 && cols[1].equals(env.vhost) && !cols[2].contains("chaos-observer")) {
                        pids.add(cols[0]);
                    }
                }
                java.util.Collections.shuffle(pids);
                int closed = 0;
                for (String pid : pids.subList(0, Math.min(f.amount(), pids.size()))) {
                    ChaosEnv.rabbitmqctl("close_connection", pid, "chaos soak");
                    closed++;
                }
                return "closed " + closed + " of " + pids.size() + " connections";
            }
            case PG_TERMINATE -> {
                long from = millis();
                StringBuilder what = new StringBuilder();
                int api = 0;
                for (String app : List.of(
                        "outbox-api",
                        "outbox-relay",
                        "outbox-relay-listener",
                        "outbox-relay-liveness",
                        "outbox-ledger")) {
                    long n = env.count(
                            "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity"
                                    + " WHERE datname = current_database() AND application_name = ? AND pid <> pg_backend_pid()"
                                    + " ORDER BY random() LIMIT ?) victims",
                            app,
                            f.amount() * 2);
                    what.append(app).append(' ').append(n).append(' ');
                    if (app.equals("outbox-api")) {
                        api += (int) n;
                    }
                }
                if (api > 0) {
                    // a request on a killed backend fails at once; one queued for a connection retries within this
                    databaseOutages.add(new Window(from - 500, millis() + 6_000));
                }
                return "terminated backends: " + what.toString().trim();
            }
            case PROXY_LATENCY -> {
                latencies.incrementAndGet();
                proxy.latency(Duration.ofMillis(f.amount()));
                try {
                    pause(f.length());
                } finally {
                    if (latencies.decrementAndGet() == 0) {
                        proxy.latency(Duration.ZERO);
                    }
                }
                return f.amount() + " ms latency for " + f.length().toMillis() + " ms";
            }
            case KILL_NODE -> {
                // one node down at a time: two of three would take the quorum queues' majority away,
                // an outage of a different kind than the loss of a node
                if (!nodeDown.compareAndSet(false, true)) {
                    return null;
                }
                try {
                    String node = Integer.toString(f.target() + 1);
                    ChaosEnv.clusterScript("kill-node", node);
                    pause(f.length());
                    ChaosEnv.clusterScript("start-node", node);
                    return "killed c" + node + "@localhost, down " + f.length().toMillis() + " ms, started again";
                } finally {
                    nodeDown.set(false);
                }
            }
            case PARTITION_DB, PARTITION_BROKER -> {
                Slot s = lockAny(f.target());
                if (s == null) {
                    return null;
                }
                try {
                    boolean db = f.kind() == Kind.PARTITION_DB;
                    dev.outbox.testkit.net.NetworkSandbox.Link link = db ? s.database : s.broker;
                    long from = millis();
                    boolean relayDb = db && s.kind == Fleet.Kind.RELAY;
                    Held leased = Held.NONE;
                    if (relayDb) {
                        // frozen while its leases are read and the link is cut, so the rows counted are
                        // exactly the ones it holds when it loses the database
                        try {
                            leased = freezeHoldingLeases(s);
                            link.partition();
                        } finally {
                            s.signal("CONT");
                        }
                        watchRecovery(Kind.PARTITION_DB, s.relayId(), leased);
                    } else {
                        link.partition();
                    }
                    try {
                        pause(f.length());
                    } finally {
                        link.heal();
                    }
                    if (db && s.kind == Fleet.Kind.API) {
                        // a request that waits on the lost database ends with a 503 within the pool's
                        // socket timeout (statement timeout + 5 s, 20 s by default); one already past it
                        // may still be answered 503 shortly after the heal
                        databaseOutages.add(new Window(from - 500, millis() + 25_000));
                    }
                    return s.name + "'s link to " + (db ? "PostgreSQL" : "RabbitMQ") + " black-holed for "
                            + f.length().toMillis() + " ms, then healed"
                            + (relayDb ? " (" + leased.size() + " leased rows)" : "");
                } finally {
                    s.lock.unlock();
                }
            }
            case PROXY_CUT -> {
                cuts.incrementAndGet();
                proxy.cut();
                try {
                    pause(f.length());
                } finally {
                    if (cuts.decrementAndGet() == 0) {
                        proxy.restore();
                    }
                }
                return "relay-broker link cut for " + f.length().toMillis() + " ms";
            }
            default -> throw new IllegalStateException(f.kind().name());
        }
    }

    /**
     * Process {@code target} of all six (API, relay, consumer, two each), or the next one a fault
     * does not hold; null when every one is busy. Only a sandboxed fleet can be partitioned.
     */
    private Slot lockAny(int target) {
        List<Slot> all = fleet.slots;
        for (int i = 0; i < all.size(); i++) {
            Slot s = all.get((target + i) % all.size());
            if (!s.sandboxed()) {
                throw new IllegalStateException("a partition needs --partitions: " + s.name + " has no sandbox");
            }
            if (s.lock.tryLock()) {
                if (s.alive()) {
                    return s;
                }
                s.lock.unlock();
            }
        }
        return null;
    }

    /** The planned process, or the other one of its kind if a fault holds it; null if both are busy. */
    private Slot lockOne(Fleet.Kind kind, int target) {
        List<Slot> candidates = fleet.of(kind);
        for (int i = 0; i < candidates.size(); i++) {
            Slot s = candidates.get((target + i) % candidates.size());
            if (s.lock.tryLock()) {
                if (s.alive()) {
                    return s;
                }
                s.lock.unlock();
            }
        }
        return null;
    }

    /**
     * Stops the relay (SIGSTOP) at a moment it holds leased rows, so that the fault hits it
     * mid-drain, where a crash costs something: freezes it, reads its leases, and if it holds none
     * lets it run a few milliseconds and tries again, for up to about three seconds. Returns the
     * rows it holds; the relay is left stopped.
     */
    private Held freezeHoldingLeases(Slot s) throws Exception {
        Held leased = Held.NONE;
        for (int attempt = 0; attempt < 60; attempt++) {
            s.signal("STOP");
            leased = leasedBy(s.relayId());
            if (!leased.isEmpty() || attempt == 59) {
                return leased;
            }
            s.signal("CONT");
            Thread.sleep(20 + java.util.concurrent.ThreadLocalRandom.current().nextInt(40));
        }
        return leased;
    }

    private Held leasedBy(String relayId) throws SQLException {
        List<String> ids = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        try (Connection c = env.connection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id::text, lease_token FROM chaos_product_outbox WHERE status = 'IN_PROGRESS'"
                                + " AND locked_by = ?")) {
            ps.setString(1, relayId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                    tokens.add(rs.getLong(2));
                }
            }
        }
        return new Held(ids, tokens);
    }

    private void watchRecovery(Kind kind, String relay, Held held) {
        double at = seconds();
        List<String> ids = held.ids();
        if (ids.isEmpty()) {
            recoveries.add(new LeaseRecovery(kind, relay, at, 0, 0, 0, true));
            return;
        }
        Thread t = new Thread(
                () -> {
                    double takenBack = -1;
                    while (true) {
                        try (Connection c = env.connection();
                                PreparedStatement ps =
                                        c.prepareStatement("SELECT count(*) FILTER (WHERE status <> 'PUBLISHED'),"
                                                + " count(*) FILTER (WHERE status = 'IN_PROGRESS' AND lease_token = ANY(?))"
                                                + " FROM message_outbox WHERE id = ANY(?::uuid[])")) {
                            ps.setArray(
                                    1, c.createArrayOf("bigint", held.tokens().toArray()));
                            Array array = c.createArrayOf("text", ids.toArray());
                            ps.setArray(2, array);
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                if (takenBack < 0 && rs.getLong(2) == 0) {
                                    takenBack = seconds() - at;
                                }
                                if (rs.getLong(1) == 0) {
                                    recoveries.add(new LeaseRecovery(
                                            kind, relay, at, ids.size(), takenBack, seconds() - at, true));
                                    return;
                                }
                            }
                        } catch (SQLException e) {
                            System.out.println("[chaos] watching " + relay + "'s leased rows: " + e);
                        }
                        if (stopping && watchDeadlinePassed) {
                            recoveries.add(
                                    new LeaseRecovery(kind, relay, at, ids.size(), takenBack, seconds() - at, false));
                            return;
                        }
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "chaos-lease-watch");
        t.setDaemon(true);
        t.start();
    }

    private volatile boolean watchDeadlinePassed;

    /** Lease watchers still waiting give up: the quiet period is over. */
    void endWatches() {
        watchDeadlinePassed = true;
    }

    /**
     * No new faults; waits for those under way to finish (each ends its own outage: SIGCONT, restart,
     * start_app, restore), then makes sure nothing is left down.
     */
    void stop() throws InterruptedException {
        stopping = true;
        scheduler.shutdown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (active.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        if (proxy != null) { // none on a cluster
            proxy.latency(Duration.ZERO);
            proxy.restore();
        }
    }

    private static void pause(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    private double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private long millis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    Map<Kind, long[]> countsByKind() {
        Map<Kind, long[]> m = new java.util.EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            m.put(k, new long[2]);
        }
        for (Done d : done) {
            m.get(d.fault().kind())[d.injected() ? 0 : 1]++;
        }
        return m;
    }
}
