package dev.outbox.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one soak runs. {@code --short} is CI's run (under two minutes); otherwise {@code --duration}
 * and {@code --orders} size it. Relay settings that make a soak converge in minutes (lease, stale
 * check, backoff) are defaults here, each overridable with {@code --relay OUTBOX_RELAY_X=value}.
 *
 * @param seed draws the fault schedule and every client's choices; printed, so a run can be replayed
 * @param duration how long clients write and faults are injected
 * @param orders keep going past {@code duration} until this many orders were placed (0: no target)
 * @param quietWait how long the system may take to go quiet after the faults stop
 * @param brokerRestart include {@code rabbitmqctl stop_app}/{@code start_app}: it stops the whole
 *     broker, so only where nothing else uses it
 * @param sabotage deliberately break these invariants before the check, to show the check fails
 * @param cluster the settings file of {@code ops/cluster.sh up}: run on that cluster (quorum
 *     queues, the PostgreSQL primary and standby) and add node kills to the faults; null: the
 *     single broker and database the tests use
 * @param partitions run every process in a network namespace of its own and add partitions of
 *     its database or broker link (packets dropped, no reset) to the faults
 * @param generatedRows write this many rows generated over every column's range by plain SQL
 *     during the load (a few hundred more than that, once PostgreSQL has refused some); each must
 *     end delivered or parked with a code
 */
record ChaosOptions(
        long seed,
        boolean shortRun,
        Duration duration,
        long orders,
        int clients,
        Duration faultInterval,
        Duration quietWait,
        Path out,
        String database,
        String vhost,
        boolean brokerRestart,
        Duration lease,
        Map<String, String> relayEnv,
        Set<String> sabotage,
        List<String> args,
        Path cluster,
        boolean partitions,
        int generatedRows) {

    static final Set<String> SABOTAGE = Set.of("order", "ledger", "journal", "outbox", "duplicate", "generated");

    static final String USAGE = "usage: ops/chaos.sh [--short] [--seed N] [--duration 5m] [--orders N] [--clients N]"
            + " [--fault-interval 8s] [--quiet-wait 3m] [--lease 20s] [--broker-restart] [--out DIR]"
            + " [--db NAME] [--vhost NAME] [--relay OUTBOX_RELAY_X=value]... [--sabotage order,ledger,journal,outbox,duplicate,generated]"
            + " [--cluster /var/tmp/outbox-cluster/cluster.env] [--partitions] [--generated-rows N]";

    static ChaosOptions parse(String[] args) {
        Long seed = null;
        boolean shortRun = false;
        Duration duration = null;
        long orders = 0;
        Integer clients = null;
        Duration faultInterval = null;
        Duration quietWait = null;
        Path out = null;
        String database = "outbox_chaos_run";
        String vhost = "outbox-chaos-run";
        boolean brokerRestart = false;
        Duration lease = Duration.ofSeconds(20);
        Map<String, String> relay = new LinkedHashMap<>();
        Set<String> sabotage = new LinkedHashSet<>();
        Path cluster = null;
        boolean partitions = false;
        int generatedRows = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--short" -> shortRun = true;
                case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
                case "--duration" -> duration = duration(value(args, ++i, a));
                case "--orders" -> orders = Long.parseLong(value(args, ++i, a));
                case "--clients" -> clients = Integer.parseInt(value(args, ++i, a));
                case "--fault-interval" -> faultInterval = duration(value(args, ++i, a));
                case "--quiet-wait" -> quietWait = duration(value(args, ++i, a));
                case "--lease" -> lease = duration(value(args, ++i, a));
                case "--broker-restart" -> brokerRestart = true;
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--db" -> database = value(args, ++i, a);
                case "--vhost" -> vhost = value(args, ++i, a);
                case "--cluster" -> cluster = Path.of(value(args, ++i, a));
                case "--partitions" -> partitions = true;
                case "--generated-rows" -> {
                    generatedRows = Integer.parseInt(value(args, ++i, a));
                    if (generatedRows < 0) {
                        throw new IllegalArgumentException("--generated-rows takes a count, got " + generatedRows);
                    }
                }
                case "--relay" -> {
                    String[] kv = value(args, ++i, a).split("=", 2);
                    if (kv.length != 2 || !kv[0].startsWith("OUTBOX_RELAY_")) {
                        throw new IllegalArgumentException("--relay takes OUTBOX_RELAY_NAME=value, got " + args[i]);
                    }
                    relay.put(kv[0], kv[1]);
                }
                case "--sabotage" -> {
                    for (String s : value(args, ++i, a).split(",")) {
                        if (!SABOTAGE.contains(s)) {
                            throw new IllegalArgumentException("--sabotage knows " + SABOTAGE + ", not " + s);
                        }
                        sabotage.add(s);
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument " + a + "; " + USAGE);
            }
        }
        if (cluster != null && brokerRestart) {
            throw new IllegalArgumentException("--broker-restart restarts the machine's own RabbitMQ; on --cluster the"
                    + " faults kill the cluster's nodes instead");
        }
        if (cluster != null && partitions) {
            throw new IllegalArgumentException(
                    "--partitions cuts a process's link to the one database and broker of"
                            + " this machine; on --cluster each process knows several nodes, and the faults kill nodes instead");
        }
        if (!database.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("--db must be a plain lower-case PostgreSQL name, got " + database);
        }
        if (seed == null) {
            seed = new java.security.SecureRandom().nextLong() & 0xffff_ffffL;
        }
        if (duration == null) {
            duration = shortRun ? Duration.ofSeconds(40) : Duration.ofMinutes(5);
        }
        if (out == null) {
            out = Path.of(
                    "ops",
                    "chaos",
                    "results",
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-seed" + seed
                            + (shortRun ? "-short" : ""));
        }
        return new ChaosOptions(
                seed,
                shortRun,
                duration,
                orders,
                clients != null ? clients : shortRun ? 6 : 10,
                faultInterval != null ? faultInterval : shortRun ? Duration.ofMillis(2500) : Duration.ofSeconds(8),
                quietWait != null ? quietWait : shortRun ? Duration.ofSeconds(40) : Duration.ofMinutes(3),
                out,
                database,
                vhost,
                brokerRestart,
                lease,
                relay,
                sabotage,
                List.of(args),
                cluster,
                partitions,
                generatedRows);
    }

    /** The relay settings of the soak: a lease short enough to converge, a stale check to match. */
    Map<String, String> relaySettings() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OUTBOX_RELAY_LEASE", lease.toMillis() + "ms");
        // a lease must be at least three confirm timeouts (RelayConfig refuses less)
        env.put("OUTBOX_RELAY_CONFIRM_TIMEOUT", Math.min(5_000, lease.toMillis() / 3) + "ms");
        env.put("OUTBOX_RELAY_STALE_CHECK_INTERVAL", "2s");
        // a window the broker can confirm within that timeout under the soak's load: with the
        // default 4,096 a full window waited longer than 5 s on 2 busy cores, the relay took the
        // slow connection for a hung one, recycled it and spent rows' attempts until they parked
        // (seed 2 at 54 orders/s: 1,725 rows PARKED CHANNEL_ERROR; REGRESSIONS.md)
        env.put("OUTBOX_RELAY_CONFIRM_WINDOW", "256");
        // the default budget (5 attempts) with delays a soak can wait for; 1m/5m/15m would outlast it
        env.put("OUTBOX_RELAY_BACKOFF", "0s,1s,2s,5s,10s");
        env.put("OUTBOX_RELAY_RECONNECT_MAX", "5s");
        if (generatedRows > 0) {
            // the generated rows' types have no contract; parked CONTRACT_UNKNOWN at once, they would
            // never meet the broker's limits and faults, which is what they are in the soak for
            env.put("OUTBOX_RELAY_UNREGISTERED_TYPES", "json-only");
        }
        env.putAll(relayEnv);
        if ("cdc".equals(env.get("OUTBOX_RELAY_MODE"))) {
            // slot names are the server's: one of the run's own, dropped with its database
            String slot = "outbox_chaos_"
                    + database.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
            env.putIfAbsent("OUTBOX_RELAY_CDC_SLOT", slot.substring(0, Math.min(63, slot.length())));
        }
        return env;
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value; " + USAGE);
        }
        return args[i];
    }

    /** 90s, 5m, 1h, 500ms, or plain seconds. */
    static Duration duration(String text) {
        String t = text.trim().toLowerCase();
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        if (t.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        if (t.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        if (t.endsWith("h")) {
            return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(t));
    }
}
