package dev.outbox.testkit;

import dev.outbox.migrations.DatabaseMigrations;
import java.util.List;
import javax.sql.DataSource;

/**
 * The order sample's and the ledger sample's own migrations, applied beside the outbox's when
 * this JVM's classpath holds them. Their processes apply them at start (the API after the
 * outbox's, the ledger consumer from its registration); tests and tools of many modules read
 * {@code orders} or {@code ledger_entries} before any such process has started, as they could
 * while the outbox's own scripts made those tables.
 */
public final class SampleMigrations {
    /** A sample's scripts and its history table, as its process names them. */
    public record Sample(String location, String historyTable) {}

    /** The order API's ({@code ApiApp.ORDERS_MIGRATIONS}, {@code ApiApp.ORDERS_HISTORY_TABLE}). */
    public static final Sample ORDERS = new Sample("classpath:db/orders", "flyway_orders_history");

    /** The ledger consumer's (its registration's {@code migrations} and history table). */
    public static final Sample LEDGER = new Sample("classpath:db/ledger", "flyway_ledger_history");

    private static final List<Sample> SAMPLES = List.of(ORDERS, LEDGER);

    private SampleMigrations() {}

    /**
     * Applies each sample's migrations whose scripts are on this class's class loader; a sample
     * that is not there is left out.
     *
     * @return how many scripts were applied
     */
    public static int apply(DataSource dataSource) {
        ClassLoader loader = SampleMigrations.class.getClassLoader();
        int applied = 0;
        for (Sample sample : SAMPLES) {
            if (loader.getResource(sample.location().substring("classpath:".length())) != null) {
                applied += DatabaseMigrations.migrateOwn(dataSource, sample.location(), sample.historyTable(), loader)
                        .migrationsExecuted;
            }
        }
        return applied;
    }
}
