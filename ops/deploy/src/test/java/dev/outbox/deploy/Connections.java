package dev.outbox.deploy;

import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.relay.RelayConfig;

/**
 * The PostgreSQL connections one process holds at most, term by term, from its settings and its
 * code (ops/deploy/README.md, "Kubernetes"). Starting, it holds the pool's idle minimum while Flyway migrates
 * (or checks) the schema on two connections of its own; running, the pool at its size and, in the
 * relay, the liveness lock's session and the LISTEN connection. The CDC stream's replication
 * connection is a WAL sender: PostgreSQL counts it in {@code max_wal_senders}, not
 * {@code max_connections}.
 *
 * @param pool HikariCP's size ({@code OUTBOX_DB_POOL_SIZE}); it opens them as threads ask
 * @param migrations Flyway's connections at start (main and migration connection; none without
 *     {@code OUTBOX_DB_MIGRATE}); a consumer's own migrations run after the product's, not beside them
 * @param liveness the relay's advisory-lock session ({@code -liveness})
 * @param listener the relay's LISTEN connection ({@code -listener})
 * @param replication the relay's CDC stream (a WAL sender)
 */
record Connections(int pool, int migrations, int liveness, int listener, int replication) {
    /**
     * Flyway's PostgreSQL support opens a second connection beside its main one unless its lock is
     * not transactional (the default is): ConnectionsIT sees both.
     */
    static final int FLYWAY = 2;

    static Connections of(OutboxProcess process, Settings s) {
        int pool = s.get(DatabaseConfig.POOL_SIZE);
        int migrations = s.get(DatabaseConfig.MIGRATE) ? FLYWAY : 0;
        if (process != OutboxProcess.RELAY) {
            return new Connections(pool, migrations, 0, 0, 0);
        }
        boolean cdc = s.get(RelayConfig.MODE).equals("cdc");
        Setting<Boolean> liveness = Declarations.named("OUTBOX_RELAY_LIVENESS");
        return new Connections(
                pool, migrations, s.get(liveness) ? 1 : 0, s.get(RelayConfig.LISTEN, !cdc) ? 1 : 0, cdc ? 1 : 0);
    }

    /** While it starts: the pool's idle minimum beside Flyway's. */
    int starting() {
        return DataSources.startingConnections(pool) + migrations;
    }

    /** Once it runs: the pool grown to its size, and the sessions of its own. */
    int running() {
        return pool + liveness + listener;
    }

    /** The most it counts against {@code max_connections} at once. */
    int peak() {
        return Math.max(starting(), running());
    }

    @Override
    public String toString() {
        return "max(starting " + DataSources.startingConnections(pool) + " + " + migrations + ", running " + pool
                + " + " + liveness + " + " + listener + ") = " + peak()
                + (replication > 0 ? " (and " + replication + " WAL sender)" : "");
    }
}
