package dev.outbox.migrations;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the outbox's SQL from {@value #LOCATION}, recording it in {@value #HISTORY_TABLE}: a
 * location and a history table of the outbox's own, so that a service's own Flyway keeps Flyway's
 * defaults ({@code db/migration}, {@code flyway_schema_history}) to itself. Safe to call from several
 * processes at once: Flyway takes a PostgreSQL advisory lock while it migrates, so the API and relay
 * can both run it at start-up.
 *
 * <p>Releases before this one kept the outbox's scripts in {@code db/migration} with their history
 * in {@code flyway_schema_history}. Such a database is adopted on the first start: the outbox's rows
 * of that history are copied into {@value #HISTORY_TABLE} (see {@link #adoptEarlierHistory}), so
 * nothing is applied twice. The rows are copied, not moved: a process of the earlier release
 * starting during a rolling upgrade still finds its history complete.
 *
 * <p>A new database gets the schema at version 16 from one baseline script, {@code
 * B16__outbox.sql}, which makes the outbox's tables only; the versioned scripts V1 to V16, which
 * also made the order and ledger samples' tables, run no more on a new database, and stay for the
 * databases that ran them (Flyway checks what it applied against them). Later changes are V17 and
 * on, for every database alike.
 */
public final class DatabaseMigrations {
    public static final String LOCATION = "classpath:db/outbox";

    /** The outbox's migration history, apart from any service's {@code flyway_schema_history}. */
    public static final String HISTORY_TABLE = "outbox_schema_history";

    /** Where releases before {@value #HISTORY_TABLE} recorded the outbox's migrations. */
    static final String EARLIER_HISTORY_TABLE = "flyway_schema_history";

    /**
     * The scripts the earlier releases applied from {@code db/migration}, frozen: exactly these
     * rows of {@value #EARLIER_HISTORY_TABLE} are the outbox's; any other row there is a service's.
     * A script added later is never in that table, so it never joins this list.
     */
    static final List<String> EARLIER_SCRIPTS = List.of(
            "V1__orders_outbox_consumers.sql",
            "V2__ordering_consumers_idempotency.sql",
            "V3__operations.sql",
            "V4__notify_pending.sql",
            "V5__relay_statement_shapes.sql",
            "V6__notify_only_waiting_relays.sql",
            "V7__relay_liveness.sql",
            "V8__ledger_journal.sql",
            "V9__lean_lease.sql",
            "V10__order_shipped.sql",
            "V11__unencodable.sql",
            "V12__relay_suspects.sql",
            "V13__cdc.sql",
            "V14__cdc_publication_keeps_its_table.sql",
            "V15__ops_audit_any_action.sql",
            "V16__codes_as_text.sql");

    /** The outbox's rows of the earlier history: its scripts (bound as an array), applied. */
    private static final String EARLIER_ROWS = " WHERE script = ANY (?) AND type = 'SQL' AND success";

    /**
     * How long the adoption waits for each of Flyway's locks: about as long as Flyway itself retries
     * its own (50 tries a second apart) before it gives up.
     */
    static final Duration ADOPTION_LOCK_WAIT = Duration.ofSeconds(60);

    /** PostgreSQL's SQLSTATE for a lock wait that reached {@code lock_timeout}. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    /** Flyway's advisory lock on a history table: this number plus the hash of its quoted name. */
    private static final long FLYWAY_LOCK_BASE = 77431708279161L;

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseMigrations.class);

    private DatabaseMigrations() {}

    /**
     * Adopts an earlier release's history if there is one, then applies what is pending. A schema
     * with no outbox history (empty, or holding a service's tables and history) gets an empty one
     * first, so that Flyway applies the baseline script {@code B16__outbox.sql} (the schema at
     * version 16 in one script, without the samples' tables) and then the versioned scripts above
     * it; a schema with a history gets the versioned scripts it lacks.
     */
    public static MigrateResult migrate(DataSource dataSource) {
        int caughtUp = catchUpEarlierHistory(dataSource);
        adoptEarlierHistory(dataSource);
        MigrateResult result = Flyway.configure(DatabaseMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations(LOCATION)
                .table(HISTORY_TABLE)
                .failOnMissingLocations(true)
                .validateMigrationNaming(true)
                .load()
                .migrate();
        result.migrationsExecuted += caughtUp;
        return result;
    }

    /**
     * Completes, the earlier releases' way, an earlier history that holds some of {@link
     * #EARLIER_SCRIPTS} but not all: a database behind the previous release, on which processes of
     * that release may be starting now too. Their Flyway takes its lock on {@value
     * #EARLIER_HISTORY_TABLE} once per script, so an adoption in between would copy a history that
     * one of them then extends in the old table only, and this release would apply that script a
     * second time. Applying the rest of those scripts through the same table and lock first (the
     * same bytes, so the same checksums) leaves nothing for them to add; the adoption then copies a
     * complete history. A service's own rows in that table are left alone: missing or future ones
     * are not this run's to judge, and its scripts below theirs apply out of order.
     *
     * @return how many scripts were applied that way (0 when the earlier history is absent, empty of
     *     outbox scripts, or complete, or when the outbox's own history exists)
     */
    static int catchUpEarlierHistory(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            String schema = currentSchema(c);
            if (tableExists(c, schema, HISTORY_TABLE) || !tableExists(c, schema, EARLIER_HISTORY_TABLE)) {
                return 0;
            }
            long present = countEarlierRows(c, schema);
            if (present == 0 || present == EARLIER_SCRIPTS.size()) {
                return 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the outbox's earlier migration history", e);
        }
        String last = EARLIER_SCRIPTS.get(EARLIER_SCRIPTS.size() - 1);
        int applied = Flyway.configure(DatabaseMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations(LOCATION)
                .table(EARLIER_HISTORY_TABLE)
                .target(last.substring(1, last.indexOf("__")))
                .outOfOrder(true)
                .ignoreMigrationPatterns("*:missing", "*:future")
                .failOnMissingLocations(true)
                .validateMigrationNaming(true)
                .load()
                .migrate()
                .migrationsExecuted;
        if (applied > 0) {
            LOG.info(
                    "applied {} outbox migration(s) the earlier way, in {}, before carrying that history over",
                    applied,
                    EARLIER_HISTORY_TABLE);
        }
        return applied;
    }

    private static long countEarlierRows(Connection c, String schema) throws SQLException {
        try (PreparedStatement count = c.prepareStatement(
                "SELECT count(*) FROM " + quote(schema) + "." + quote(EARLIER_HISTORY_TABLE) + EARLIER_ROWS)) {
            count.setArray(1, c.createArrayOf("text", EARLIER_SCRIPTS.toArray()));
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * The advisory lock key Flyway takes while it migrates with {@code historyTable} in {@code
     * schema}: whoever holds it holds every such migration off.
     */
    public static long flywayLockKey(String schema, String historyTable) {
        return FLYWAY_LOCK_BASE + (quote(schema) + "." + quote(historyTable)).hashCode();
    }

    /**
     * Makes {@value #HISTORY_TABLE} when the schema has none: with the outbox's rows of {@value
     * #EARLIER_HISTORY_TABLE} copied into it when an earlier release migrated the schema, empty
     * otherwise. One transaction, holding Flyway's locks on both history tables (the earlier one
     * first), so that neither a process of the earlier release migrating nor another process of
     * this one can interleave; the condition is checked again under them. A database whose earlier
     * history names outbox scripts but which has no {@code message_outbox} is refused rather than
     * recorded as migrated.
     *
     * <p>The empty history is made here, not by Flyway, because Flyway applies a baseline script
     * only to an empty history, and on a schema that holds tables already (the service's own) it
     * would instead record a baseline marker and apply every versioned script, the samples' tables
     * with them.
     *
     * @return how many rows were carried over (0 when there was nothing to adopt)
     */
    static int adoptEarlierHistory(DataSource dataSource) {
        return adoptEarlierHistory(dataSource, ADOPTION_LOCK_WAIT);
    }

    /**
     * {@link #adoptEarlierHistory(DataSource)}, waiting at most {@code lockWait} for each lock: a
     * holder that hangs (a migration stuck on a lock of its own, a process frozen inside Flyway)
     * stops this start with a message naming the lock, instead of holding it until the migration
     * connection's socket timeout, half an hour later.
     */
    static int adoptEarlierHistory(DataSource dataSource, Duration lockWait) {
        try (Connection c = dataSource.getConnection()) {
            String schema = currentSchema(c);
            if (tableExists(c, schema, HISTORY_TABLE)) {
                return 0;
            }
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                try (Statement s = c.createStatement()) {
                    s.execute("SET LOCAL lock_timeout = '" + lockWait.toMillis() + "ms'");
                }
                int carried = adoptLocked(c, schema, lockWait);
                c.commit();
                if (carried > 0) {
                    LOG.info(
                            "carried {} outbox migration(s) from {}.{} into {}.{} (the rows stay in {} for"
                                    + " processes of the earlier release)",
                            carried,
                            schema,
                            EARLIER_HISTORY_TABLE,
                            schema,
                            HISTORY_TABLE,
                            EARLIER_HISTORY_TABLE);
                }
                return carried;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not adopt the outbox's earlier migration history", e);
        }
    }

    private static int adoptLocked(Connection c, String schema, Duration lockWait) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
            for (String table : List.of(EARLIER_HISTORY_TABLE, HISTORY_TABLE)) {
                lock.setLong(1, flywayLockKey(schema, table));
                try {
                    lock.execute();
                } catch (SQLException e) {
                    if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                        throw e;
                    }
                    throw new IllegalStateException(
                            "waited " + lockWait.toSeconds() + " s for Flyway's lock on "
                                    + schema + "." + table + " (advisory lock " + flywayLockKey(schema, table)
                                    + "); another process's migration holds it: see pg_locks",
                            e);
                }
                if (tableExists(c, schema, HISTORY_TABLE)) {
                    // another process adopted while this one waited: let go at once, rather than hold
                    // the earlier table's lock while that process's Flyway runs a long script
                    return 0;
                }
            }
        }
        String earlier = quote(schema) + "." + quote(EARLIER_HISTORY_TABLE);
        long rows = tableExists(c, schema, EARLIER_HISTORY_TABLE) ? countEarlierRows(c, schema) : 0;
        if (rows == 0) {
            // no earlier release migrated this schema (that history, if any, is a service's alone)
            createEmptyHistory(c, schema);
            LOG.info("started the outbox's migration history {}.{}", schema, HISTORY_TABLE);
            return 0;
        }
        if (!tableExists(c, schema, "message_outbox")) {
            throw new IllegalStateException(schema + "." + EARLIER_HISTORY_TABLE + " records " + rows
                    + " of the outbox's migrations but " + schema + ".message_outbox does not exist:"
                    + " the history does not describe this schema, so nothing is carried over");
        }
        String history = quote(schema) + "." + quote(HISTORY_TABLE);
        try (Statement s = c.createStatement()) {
            // the same columns, defaults and keys as the table Flyway made, under the outbox's name
            s.execute("CREATE TABLE " + history + " (LIKE " + earlier + " INCLUDING ALL)");
        }
        try (PreparedStatement copy = c.prepareStatement("INSERT INTO " + history
                + " (installed_rank, version, description, type, script, checksum, installed_by, installed_on,"
                + " execution_time, success)"
                + " SELECT row_number() OVER (ORDER BY installed_rank), version, description, type, script,"
                + " checksum, installed_by, installed_on, execution_time, success"
                + " FROM " + earlier + EARLIER_ROWS)) {
            copy.setArray(1, c.createArrayOf("text", EARLIER_SCRIPTS.toArray()));
            return copy.executeUpdate();
        }
    }

    /**
     * The table Flyway would make for {@value #HISTORY_TABLE} on PostgreSQL, the same columns,
     * types, defaults, key and index, under the same names (its {@code createMetaDataTable} DDL):
     * Flyway then finds it, empty, and fills it as its own.
     */
    private static void createEmptyHistory(Connection c, String schema) throws SQLException {
        String history = quote(schema) + "." + quote(HISTORY_TABLE);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + history + " (\"installed_rank\" INT NOT NULL, \"version\" VARCHAR(50),"
                    + " \"description\" VARCHAR(200) NOT NULL, \"type\" VARCHAR(20) NOT NULL,"
                    + " \"script\" VARCHAR(1000) NOT NULL, \"checksum\" INTEGER,"
                    + " \"installed_by\" VARCHAR(100) NOT NULL, \"installed_on\" TIMESTAMP NOT NULL DEFAULT now(),"
                    + " \"execution_time\" INTEGER NOT NULL, \"success\" BOOLEAN NOT NULL)");
            s.execute("ALTER TABLE " + history + " ADD CONSTRAINT " + quote(HISTORY_TABLE + "_pk")
                    + " PRIMARY KEY (\"installed_rank\")");
            s.execute("CREATE INDEX " + quote(HISTORY_TABLE + "_s_idx") + " ON " + history + " (\"success\")");
        }
    }

    private static String currentSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_schema()")) {
            rs.next();
            String schema = rs.getString(1);
            if (schema == null) {
                throw new IllegalStateException("no schema on the search_path to migrate the outbox into");
            }
            return schema;
        }
    }

    private static boolean tableExists(Connection c, String schema, String table) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = ? AND tablename = ?)")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /**
     * Applies a service's or consumer's own migrations from {@code location}, with a history table
     * of their own beside the outbox's {@value #HISTORY_TABLE}: the first run baselines an existing
     * schema at version 0, so their {@code V1__} applies on a database the outbox already migrated.
     * The same advisory lock makes it safe from several processes at once.
     *
     * @param loader the class loader that sees {@code location} (the consumer's jar)
     */
    public static MigrateResult migrateOwn(
            DataSource dataSource, String location, String historyTable, ClassLoader loader) {
        return Flyway.configure(loader)
                .dataSource(dataSource)
                .locations(location)
                .table(historyTable)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .failOnMissingLocations(true)
                .validateMigrationNaming(true)
                .load()
                .migrate();
    }
}
