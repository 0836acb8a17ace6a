package dev.outbox.example.invoicing;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.OutboxPersistence;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The wiring a service of its own needs to adopt the outbox: the outbox's schema and its own
 * (separate migration histories), and one MyBatis-Guice module holding both mappers.
 */
public final class InvoicingApp {
    /** This service's migration history, beside the outbox's {@code outbox_schema_history}. */
    static final String HISTORY_TABLE = "flyway_invoicing_history";

    private InvoicingApp() {}

    public static Injector start(DataSource dataSource) {
        OutboxPersistence.migrate(dataSource);
        Flyway.configure(InvoicingApp.class.getClassLoader())
                .dataSource(dataSource)
                .table(HISTORY_TABLE)
                .locations("classpath:db/invoicing")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        // its contract (invoice.issued) where the relay, started from its own jar, reads it
        OutboxPersistence.register(dataSource, "invoicing");
        // the module binds a UTC clock, which InvoiceService shares with the outbox
        return Guice.createInjector(OutboxPersistence.module(dataSource, Duration.ofSeconds(30), InvoiceMapper.class));
    }
}
