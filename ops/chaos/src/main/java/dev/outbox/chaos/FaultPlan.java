package dev.outbox.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The fault schedule, drawn from the seed alone, so a run that found something can be replayed
 * with the same faults at the same offsets (the interleaving with the processes' own timing
 * cannot be replayed exactly; the schedule can). Faults overlap: one starts on average every
 * {@code interval}, and many last longer than that. The first faults cover every enabled kind once.
 */
record FaultPlan(List<Fault> faults) {
    enum Kind {
        KILL_RELAY("SIGKILL a relay, restart it"),
        KILL_CONSUMER("SIGKILL a ledger consumer, restart it"),
        KILL_API("SIGKILL an API process, restart it"),
        PAUSE_RELAY("SIGSTOP a relay for longer than its lease, then SIGCONT"),
        BROKER_RESTART("rabbitmqctl stop_app, then start_app"),
        CLOSE_CONNECTION("rabbitmqctl close_connection on a process's connection"),
        PG_TERMINATE("pg_terminate_backend on random backends of every process"),
        PROXY_LATENCY("relay-broker proxy adds latency"),
        PROXY_CUT("relay-broker proxy cuts every connection, refuses new ones for a while"),
        KILL_NODE("SIGKILL a RabbitMQ node of the cluster, start it again (--cluster)"),
        PARTITION_DB("drop every packet between a process and PostgreSQL (no reset), then heal (--partitions)"),
        PARTITION_BROKER("drop every packet between a process and RabbitMQ (no reset), then heal (--partitions)");

        final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    /**
     * One fault.
     *
     * @param at offset from the start of the load
     * @param target which of the two processes of its kind (0 or 1); for a node, which of three
     *     (0-2); for a partition, which of the six processes (0-5: API, relay, consumer, two each)
     * @param length how long it lasts: down time before a restart, pause, outage, latency period
     * @param amount latency in ms, or backends/connections per process
     * @param freshId a restarted relay comes back under a new id (else the same one)
     */
    record Fault(Duration at, Kind kind, int target, Duration length, int amount, boolean freshId) {}

    static FaultPlan draw(
            long seed, Duration window, Duration interval, Duration lease, boolean brokerRestart, boolean rabbitmqctl) {
        return draw(seed, window, interval, lease, brokerRestart, rabbitmqctl, false, false);
    }

    /**
     * On a cluster, the relays reach the broker without the proxy (they know every node), so the
     * proxy's faults give way to node kills; a schedule without {@code cluster} is the same as
     * before it existed, so old seeds replay. Partitions join the kinds only with {@code
     * partitions}, for the same reason.
     */
    static FaultPlan draw(
            long seed,
            Duration window,
            Duration interval,
            Duration lease,
            boolean brokerRestart,
            boolean rabbitmqctl,
            boolean cluster,
            boolean partitions) {
        Random rnd = new Random(seed);
        List<Kind> kinds = new ArrayList<>();
        for (Kind k : Kind.values()) {
            boolean needsCtl = k == Kind.BROKER_RESTART || k == Kind.CLOSE_CONNECTION;
            boolean proxy = k == Kind.PROXY_CUT || k == Kind.PROXY_LATENCY;
            boolean partition = k == Kind.PARTITION_DB || k == Kind.PARTITION_BROKER;
            if (partition) {
                if (partitions) {
                    kinds.add(k);
                }
            } else if (k == Kind.KILL_NODE
                    ? cluster
                    : (k != Kind.BROKER_RESTART || brokerRestart)
                            && (!needsCtl || rabbitmqctl)
                            && !(proxy && cluster)) {
                kinds.add(k);
            }
        }
        List<Kind> firstRound = new ArrayList<>(kinds);
        Collections.shuffle(firstRound, rnd);
        // the longest kind first, or a short run has no room left for it
        if (firstRound.remove(Kind.PAUSE_RELAY)) {
            firstRound.add(0, Kind.PAUSE_RELAY);
        }
        // the partitions next: they are what --partitions asks for, and they are long too
        if (firstRound.remove(Kind.PARTITION_DB)) {
            firstRound.add(Math.min(1, firstRound.size()), Kind.PARTITION_DB);
        }
        if (firstRound.remove(Kind.PARTITION_BROKER)) {
            firstRound.add(Math.min(2, firstRound.size()), Kind.PARTITION_BROKER);
        }
        List<Fault> faults = new ArrayList<>();
        long windowMs = window.toMillis();
        // leave the first seconds for the load to settle and the last for the faults to end inside the window
        long t = Math.min(3_000, windowMs / 10);
        while (true) {
            t += (long) (interval.toMillis() * (0.3 + 1.4 * rnd.nextDouble()));
            if (t >= windowMs - 1_000) {
                break;
            }
            Kind kind = !firstRound.isEmpty() ? firstRound.remove(0) : kinds.get(rnd.nextInt(kinds.size()));
            Duration length = switch (kind) {
                case KILL_RELAY, KILL_CONSUMER, KILL_API -> Duration.ofMillis(300 + rnd.nextInt(3_700));
                case PAUSE_RELAY -> lease.plusMillis(2_000 + rnd.nextInt(4_000));
                case BROKER_RESTART -> Duration.ofMillis(2_000 + rnd.nextInt(5_000));
                case PROXY_LATENCY -> Duration.ofMillis(3_000 + rnd.nextInt(10_000));
                case PROXY_CUT -> Duration.ofMillis(500 + rnd.nextInt(5_000));
                case KILL_NODE -> Duration.ofMillis(2_000 + rnd.nextInt(6_000));
                // from a blip to well past the pool's socket timeout (20 s by default)
                case PARTITION_DB, PARTITION_BROKER -> Duration.ofMillis(1_000 + rnd.nextInt(24_000));
                case CLOSE_CONNECTION, PG_TERMINATE -> Duration.ZERO;
            };
            long room = windowMs - 500 - t;
            long shortest = switch (kind) {
                case PAUSE_RELAY -> lease.toMillis() + 1_000;
                case BROKER_RESTART -> 2_000;
                case PROXY_LATENCY, PARTITION_DB, PARTITION_BROKER -> 1_000;
                default -> 300;
            };
            if (length.toMillis() > room && shortest <= room) {
                // cut to fit: every fault ends inside the window, and a short run still sees every kind
                length = Duration.ofMillis(room);
            }
            if (t + length.toMillis() > windowMs - 500) {
                // would outlast the window even so: a short kind instead, so the schedule's density stays
                List<Kind> instant = kinds.stream()
                        .filter(k -> k == Kind.PG_TERMINATE
                                || k == Kind.CLOSE_CONNECTION
                                || k == Kind.KILL_CONSUMER
                                || k == Kind.KILL_API)
                        .toList();
                kind = instant.get(rnd.nextInt(instant.size()));
                length = kind == Kind.KILL_CONSUMER || kind == Kind.KILL_API ? Duration.ofMillis(300) : Duration.ZERO;
                if (t + length.toMillis() > windowMs - 500) {
                    continue;
                }
            }
            int amount = switch (kind) {
                case PROXY_LATENCY -> 20 + rnd.nextInt(230);
                case PG_TERMINATE, CLOSE_CONNECTION -> 1 + rnd.nextInt(2);
                default -> 0;
            };
            int target = kind == Kind.KILL_NODE
                    ? rnd.nextInt(3)
                    : kind == Kind.PARTITION_DB || kind == Kind.PARTITION_BROKER ? rnd.nextInt(6) : rnd.nextInt(2);
            faults.add(new Fault(Duration.ofMillis(t), kind, target, length, amount, rnd.nextBoolean()));
        }
        return new FaultPlan(List.copyOf(faults));
    }
}
