package dev.outbox.chaos;

import dev.outbox.persistence.DataSources;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one rollout test runs ({@code ops/rollout.sh}). {@code --quick} is the smoke run; the full
 * run is 8 relays on 100,000 rows with 4 of them stopped mid-drain.
 *
 * @param relays relay processes started at once on the backlog
 * @param rows the backlog, written before any relay starts
 * @param terminate relays SIGTERMed at once mid-drain; as many replacements start right after
 * @param terminateAt the share of the backlog delivered when the SIGTERMs go out
 * @param grace how long a SIGTERMed relay may take to exit: Kubernetes' terminationGracePeriodSeconds
 *     (its default, 30 s, unless the Deployment says otherwise); past it the kubelet sends SIGKILL,
 *     and so does this test
 * @param poolSize {@code OUTBOX_DB_POOL_SIZE} of every relay: the relay Deployment's
 * @param relayEnv further relay settings ({@code --relay OUTBOX_X=value}); every other setting is
 *     the relay's default
 */
record RolloutOptions(
        int relays,
        int rows,
        int terminate,
        double terminateAt,
        Duration grace,
        int poolSize,
        Path out,
        String database,
        String vhost,
        boolean quick,
        Map<String, String> relayEnv,
        List<String> args) {

    static final String USAGE = "usage: ops/rollout.sh [--quick] [--relays 8] [--rows 100000] [--terminate 4]"
            + " [--terminate-at 0.4] [--grace 30s] [--pool-size 10] [--out DIR] [--db outbox_rollout]"
            + " [--vhost outbox-rollout] [--relay OUTBOX_X=value]...";

    static RolloutOptions parse(String[] args) {
        boolean quick = List.of(args).contains("--quick");
        int relays = quick ? 4 : 8;
        int rows = quick ? 10_000 : 100_000;
        Integer terminate = null;
        double terminateAt = 0.4;
        Duration grace = Duration.ofSeconds(30);
        int poolSize = 10;
        Path out = null;
        String database = "outbox_rollout";
        String vhost = "outbox-rollout";
        Map<String, String> relayEnv = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> {
                    // read above: it sets the defaults the other options override
                }
                case "--relays" -> relays = Integer.parseInt(value(args, ++i, a));
                case "--rows" -> rows = Integer.parseInt(value(args, ++i, a));
                case "--terminate" -> terminate = Integer.parseInt(value(args, ++i, a));
                case "--terminate-at" -> terminateAt = Double.parseDouble(value(args, ++i, a));
                case "--grace" -> grace = ChaosOptions.duration(value(args, ++i, a));
                case "--pool-size" -> poolSize = Integer.parseInt(value(args, ++i, a));
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--db" -> database = value(args, ++i, a);
                case "--vhost" -> vhost = value(args, ++i, a);
                case "--relay" -> {
                    String[] kv = value(args, ++i, a).split("=", 2);
                    if (kv.length != 2 || !kv[0].startsWith("OUTBOX_")) {
                        throw new IllegalArgumentException("--relay takes OUTBOX_NAME=value, got " + args[i]);
                    }
                    if (kv[0].equals("OUTBOX_RELAY_ID") || kv[0].equals("OUTBOX_DB_POOL_SIZE")) {
                        throw new IllegalArgumentException(kv[0] + " is the test's to set (the pool: --pool-size)");
                    }
                    if (kv[0].equals("OUTBOX_RELAY_MODE") && !kv[1].equals("polling")) {
                        // a CDC relay holds a replication connection and reads one slot: another test
                        throw new IllegalArgumentException("the rollout test runs polling relays");
                    }
                    relayEnv.put(kv[0], kv[1]);
                }
                default -> throw new IllegalArgumentException("unknown argument " + a + "; " + USAGE);
            }
        }
        int stopped = terminate != null ? terminate : relays / 2;
        if (relays < 2 || stopped < 1 || stopped >= relays) {
            throw new IllegalArgumentException("--terminate must stop at least one relay and leave one running, of"
                    + " at least two; got " + stopped + " of " + relays);
        }
        if (rows < 1_000) {
            throw new IllegalArgumentException("--rows must be at least 1000: the SIGTERMs go out mid-drain");
        }
        if (!(terminateAt > 0 && terminateAt < 1)) {
            throw new IllegalArgumentException("--terminate-at is a share of the backlog between 0 and 1");
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("--pool-size must be at least 1");
        }
        if (!database.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("--db must be a plain lower-case PostgreSQL name, got " + database);
        }
        if (out == null) {
            out = Path.of(
                    "ops",
                    "chaos",
                    "results",
                    "rollout-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                            + (quick ? "-quick" : ""));
        }
        return new RolloutOptions(
                relays,
                rows,
                stopped,
                terminateAt,
                grace,
                poolSize,
                out,
                database,
                vhost,
                quick,
                Map.copyOf(relayEnv),
                List.of(args));
    }

    /** Publishing channels per relay, as the relays are told. */
    int publishers() {
        return Integer.parseInt(relayEnv.getOrDefault("OUTBOX_RELAY_PUBLISHERS", "1"));
    }

    /**
     * The PostgreSQL connections one relay may hold at once, from its settings and its code: while
     * it starts, three of the pool's beside Flyway's two (none with {@code OUTBOX_DB_MIGRATE=false});
     * once it runs, the pool at its size, its liveness lock's session ({@code -liveness}) and its
     * LISTEN connection ({@code -listener}). Three, not the pool's idle minimum of two
     * ({@code DataSources}): the start-up wait borrows a connection of the empty pool, which opens
     * it on demand, and the pool's filler then opens its two idle ones beside it (seen here: 3 of
     * the pool and 2 of Flyway at once while a relay started, with a pool of 3).
     */
    int databaseBound() {
        return Math.max(DataSources.startingConnections(poolSize) + flyway(), running());
    }

    /**
     * The sessions one relay opens in its life without a retry: Flyway's, then every connection it
     * may hold once it runs (the pool's idle minimum is among them).
     */
    int sessionsPerRelay() {
        return flyway() + running();
    }

    private int flyway() {
        return off("OUTBOX_DB_MIGRATE") ? 0 : 2;
    }

    private int running() {
        return poolSize + (off("OUTBOX_RELAY_LIVENESS") ? 0 : 1) + (off("OUTBOX_RELAY_LISTEN") ? 0 : 1);
    }

    /**
     * Channels one relay may have open: one per publishing lane, and one more for a moment (the
     * topology's declaration on each new connection, or a suspect published alone).
     */
    int channelBound() {
        return publishers() + 1;
    }

    private boolean off(String setting) {
        return "false".equalsIgnoreCase(relayEnv.get(setting));
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value; " + USAGE);
        }
        return args[i];
    }
}
