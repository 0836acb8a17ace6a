package dev.outbox.bench;

import dev.outbox.config.Settings;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The database and broker every scenario of one run shares, chosen like the tests choose theirs
 * ({@code OUTBOX_TEST_DB_URL} / {@code OUTBOX_TEST_AMQP_URI}, else Testcontainers, else embedded),
 * and the small operations between scenarios: empty the outbox, purge the queue, lay down a
 * backlog. The benchmark owns that database: every scenario starts by emptying it.
 */
final class BenchEnv {
    /** The queue every scenario publishes into: the sample ledger's, bound to every order event. */
    static final String QUEUE = LedgerConsumer.QUEUE;

    final TestDatabase db;
    final TestBroker broker;

    final QueueType queueType;

    BenchEnv() {
        this(TestBroker.get(), QueueType.CLASSIC);
    }

    /** The same database with another broker and queue type (the quorum-queue run's cluster). */
    BenchEnv(TestBroker broker, QueueType queueType) {
        this.db = TestDatabase.get();
        this.broker = broker;
        this.queueType = queueType;
        broker.withChannel(ch -> Topology.declare(ch, queueType));
    }

    Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(db.url(), db.user(), db.password());
        c.setAutoCommit(false);
        return c;
    }

    /**
     * Empty tables (TRUNCATE also drops dead tuples) and an empty queue. The relay registry stays:
     * relays measured after a warm-up are running, and their claims are fenced on their registration
     * (RESTART IDENTITY would also hand their lock keys to the next relay that registers).
     */
    void clean() {
        db.resetExcept("outbox_relays");
        broker.purgeIfExists(QUEUE);
        broker.purgeIfExists(Topology.deadLetterQueueOf(QUEUE));
    }

    /**
     * A database as a new deployment has it: the schema dropped, created again and migrated, so
     * the outbox table has never been analyzed and the planner has no statistics for it at all.
     * ({@link #clean()} keeps the column statistics of earlier scenarios: TRUNCATE does not remove
     * them.) Needs the right to drop and create the schema: the benchmark's database is its own.
     */
    void fresh() {
        broker.purgeIfExists(QUEUE);
        broker.purgeIfExists(Topology.deadLetterQueueOf(QUEUE));
        String schema = (String) db.scalar("SELECT current_schema()");
        db.execute("DROP SCHEMA " + schema + " CASCADE");
        db.execute("CREATE SCHEMA " + schema);
        dev.outbox.migrations.DatabaseMigrations.migrate(db.dataSource());
        // the processes start with OUTBOX_DB_MIGRATE=false: the samples' tables are made here
        dev.outbox.testkit.SampleMigrations.apply(db.dataSource());
        requireNoStatistics();
    }

    /**
     * The start of a scenario that drains a backlog at once: a fresh database (never analyzed) and
     * the backlog as a new deployment would meet it, or an emptied one and the backlog analyzed in
     * the transaction that writes it.
     */
    void startFrom(boolean fresh, List<NewOutboxMessage> events) throws SQLException {
        if (fresh) {
            fresh();
        } else {
            clean();
        }
        backlog(events, !fresh);
    }

    /** Fails unless the planner has no statistics for the outbox table: never analyzed. */
    void requireNoStatistics() {
        if (db.count(
                                "SELECT count(*) FROM pg_stats WHERE tablename = 'message_outbox' AND schemaname = current_schema()")
                        != 0
                || db.count("SELECT count(*) FROM pg_class WHERE oid = 'message_outbox'::regclass"
                                + " AND reltuples >= 0")
                        != 0) {
            throw new IllegalStateException("the outbox table was meant to be fresh but has statistics");
        }
    }

    /**
     * Turns autovacuum (and so auto-analyze) of the outbox table off, or back to the migrations'
     * settings: a fresh-database scenario warms its relays up without letting autovacuum gather
     * the statistics the scenario is about.
     */
    void autovacuum(boolean enabled) {
        db.execute("ALTER TABLE message_outbox "
                + (enabled ? "RESET (autovacuum_enabled)" : "SET (autovacuum_enabled = false)"));
    }

    /** Writes {@code messages} as pending rows in one transaction; returns the database's time of the commit. */
    Instant backlog(List<NewOutboxMessage> messages) throws SQLException {
        return backlog(messages, false);
    }

    /**
     * Writes {@code messages} as pending rows in one transaction, analyzing the table before the
     * commit when {@code analyze} (ANALYZE counts the transaction's own rows), so whoever claims
     * them plans with statistics that describe them from the first claim on.
     *
     * @return the database's time of the commit
     */
    Instant backlog(List<NewOutboxMessage> messages, boolean analyze) throws SQLException {
        try (Connection c = connect()) {
            Backlog.copy(c, messages);
            if (analyze) {
                try (Statement s = c.createStatement()) {
                    s.execute("ANALYZE message_outbox");
                }
            }
            c.commit();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
                rs.next();
                Instant committed = rs.getTimestamp(1).toInstant();
                c.commit();
                return committed;
            }
        }
    }

    /**
     * Writes {@code messages} in transactions of at most {@code chunk} rows (the last one analyzes
     * the table before its commit, as {@link #backlog(List, boolean)} does).
     *
     * @return the database's time of the first commit: the relay may start then
     */
    Instant backlogInChunks(List<NewOutboxMessage> messages, int chunk, boolean analyze) throws SQLException {
        Instant first = null;
        for (int from = 0; from < messages.size(); from += chunk) {
            List<NewOutboxMessage> part = messages.subList(from, Math.min(messages.size(), from + chunk));
            Instant committed = backlog(part, analyze && from + chunk >= messages.size());
            if (first == null) {
                first = committed;
            }
        }
        return first;
    }

    /** Enables or disables the trigger that sends {@code outbox_pending} notifications (migration V4). */
    void notifyTrigger(boolean enabled) {
        db.execute("ALTER TABLE message_outbox " + (enabled ? "ENABLE" : "DISABLE")
                + " TRIGGER message_outbox_notify_pending");
    }

    void analyze() {
        db.execute("ANALYZE message_outbox");
    }

    /** Settings for an in-process relay, API or store against this run's database and broker. */
    Map<String, String> processEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.putAll(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_AMQP_QUEUE_TYPE", queueType.argument());
        env.put("OUTBOX_DB_MIGRATE", "false");
        env.put("OUTBOX_RETENTION_ENABLED", "false");
        env.put("OUTBOX_RELAY_HTTP_PORT", "-1");
        return env;
    }

    Settings settings(Map<String, String> overrides) {
        return new Settings(processEnv()).with(overrides);
    }

    /** A MyBatis-backed database, as the relay and the API build theirs. */
    Database database(String applicationName, int poolSize) {
        Settings s = settings(Map.of("OUTBOX_DB_POOL_SIZE", Integer.toString(poolSize)));
        // the relay's own settings (custom plans), so B measures what the relay's statements cost
        return Database.start(DatabaseConfig.from(s, db.url(), applicationName).withCustomPlans(), false);
    }

    long count(String where) {
        return db.count("SELECT count(*) FROM message_outbox WHERE " + where);
    }
}
