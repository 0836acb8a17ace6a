package dev.outbox.api.orders.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.api.ApiApp;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.testkit.ReleasedScripts;
import dev.outbox.testkit.SampleMigrations;
import dev.outbox.testkit.ScratchDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The order service's own script ({@value ApiApp#ORDERS_MIGRATIONS}) makes {@code orders} and
 * {@code order_lines} exactly as the outbox's scripts of the earlier releases made them ({@link
 * ReleasedScripts}), so that a database either made is the same to the service; on a database such
 * a release migrated and this release upgraded it changes nothing
 * and loses nothing, and records itself in a history of its own.
 */
class OrdersMigrationsIT {
    private static final List<String> TABLES = List.of("orders", "order_lines");

    @Test
    void itsOwnScriptMakesTheTablesInTheShapeTheOutboxsScriptsGaveThem() {
        try (ScratchDatabase byTheOutbox = ScratchDatabase.create();
                ScratchDatabase byItself = ScratchDatabase.create()) {
            byTheOutbox.migrateAsReleased();
            migrateOrders(byItself);

            for (String table : TABLES) {
                List<String> shape = byItself.shape(table);
                assertFalse(shape.isEmpty(), table);
                assertEquals(byTheOutbox.shape(table), shape, table);
            }
            assertFalse(byItself.tableExists("message_outbox"), "the service's script makes its own tables only");
        }
    }

    @Test
    void onADatabaseTheOutboxMigratedItChangesNothingAndRecordsItself() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            db.migrateAsReleased();
            DatabaseMigrations.migrate(db.dataSource());
            db.execute("INSERT INTO orders (id, customer_id, status, version, currency, total, created_at, updated_at)"
                    + " VALUES ('00000000-0000-0000-0000-0000000000a1', 'c-1', 'PLACED', 1, 'EUR', 10, now(), now())");
            db.execute("INSERT INTO order_lines (order_id, line_no, sku, quantity, unit_price)"
                    + " VALUES ('00000000-0000-0000-0000-0000000000a1', 1, 'SKU-1', 1, 10)");
            List<String> orders = db.shape("orders");
            List<String> lines = db.shape("order_lines");

            assertEquals(1, migrateOrders(db));

            assertEquals(orders, db.shape("orders"));
            assertEquals(lines, db.shape("order_lines"));
            assertEquals(1, db.count("SELECT count(*) FROM orders"));
            assertEquals(1, db.count("SELECT count(*) FROM order_lines"));
            assertEquals(
                    List.of("1|V1__orders.sql|true"),
                    db.rows("SELECT version, script, success::text FROM " + ApiApp.ORDERS_HISTORY_TABLE
                            + " WHERE type = 'SQL'"));
            assertEquals(
                    0,
                    db.count("SELECT count(*) FROM outbox_schema_history WHERE script = 'V1__orders.sql'"),
                    "the outbox's history never holds the service's script");
            assertEquals(0, migrateOrders(db), "applied once");
            assertTrue(db.tableExists("message_outbox"));
        }
    }

    /** The testkit applies the service's scripts for tests that read its tables: the same ones. */
    @Test
    void theTestkitAppliesTheseScriptsUnderTheServicesNames() {
        assertEquals(
                new SampleMigrations.Sample(ApiApp.ORDERS_MIGRATIONS, ApiApp.ORDERS_HISTORY_TABLE),
                SampleMigrations.ORDERS);
    }

    private static int migrateOrders(ScratchDatabase db) {
        return DatabaseMigrations.migrateOwn(
                        db.dataSource(),
                        ApiApp.ORDERS_MIGRATIONS,
                        ApiApp.ORDERS_HISTORY_TABLE,
                        ApiApp.class.getClassLoader())
                .migrationsExecuted;
    }
}
