package com.example.adoption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.outbox.OutboxPersistence;
import dev.outbox.OutsideTransactionException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every stack's service must see, on real PostgreSQL: the outbox set up through the front
 * door, the message committing and rolling back with the service's row, refused outside a
 * transaction, and the libraries on its class path at the versions the outbox was tested with.
 */
public abstract class AdopterCases {
    protected final DataSource dataSource = Database.dataSource();

    /** The service's own table. */
    protected abstract String table();

    /** Issues an invoice and records its message in one transaction of the stack's; the message id. */
    protected abstract UUID issue(UUID invoice, BigDecimal amount) throws Exception;

    /** As {@link #issue}, then fails inside the same transaction. */
    protected abstract void issueThenFail(UUID invoice, BigDecimal amount) throws Exception;

    /** Records the invoice's message where the stack has no transaction. */
    protected abstract void recordOutsideATransaction(UUID invoice) throws Exception;

    /** Whether the stack's one artifact brings MyBatis (only the MyBatis-Guice adapter's does). */
    protected boolean bringsMyBatis() {
        return false;
    }

    @BeforeEach
    void theOutboxSetUpAsAServiceDoesAtItsStart() throws Exception {
        OutboxPersistence.migrate(dataSource);
        OutboxPersistence.register(dataSource, "adopter " + getClass().getSimpleName());
        Database.invoices(dataSource, table());
    }

    @Test
    void theMessageCommitsWithTheServicesRow() throws Exception {
        UUID invoice = UUID.randomUUID();
        UUID messageId = issue(invoice, new BigDecimal("25.00"));

        assertArrayEquals(new long[] {1, 1}, Database.invoiceAndMessages(dataSource, table(), invoice));
        assertEquals(1, Database.count(dataSource, "SELECT count(*) FROM message_outbox WHERE id = ?", messageId));
    }

    @Test
    void theMessageRollsBackWithTheServicesRow() throws Exception {
        UUID invoice = UUID.randomUUID();
        assertThrows(IllegalStateException.class, () -> issueThenFail(invoice, new BigDecimal("25.00")));

        assertArrayEquals(new long[] {0, 0}, Database.invoiceAndMessages(dataSource, table(), invoice));
    }

    @Test
    void outsideATransactionNothingIsWritten() throws Exception {
        UUID invoice = UUID.randomUUID();
        assertThrows(OutsideTransactionException.class, () -> recordOutsideATransaction(invoice));

        assertArrayEquals(new long[] {0, 0}, Database.invoiceAndMessages(dataSource, table(), invoice));
    }

    @Test
    void theClassPathHoldsWhatTheOutboxWasTestedWith() throws Exception {
        assertEquals(System.getProperty("outbox.tested.jackson"), version("com.fasterxml.jackson.core", "jackson-databind"));
        // Guava comes with Guice, on the MyBatis-Guice stack only, and then at the tested version
        assertEquals(
                bringsMyBatis() ? System.getProperty("outbox.tested.guava") : null,
                version("com.google.guava", "guava"));
        assertEquals(bringsMyBatis(), present("org.apache.ibatis.session.SqlSession"), "MyBatis on the class path");
        // what only the outbox's processes carry: a service keeps its own tracing and metrics
        assertEquals(false, present("io.opentelemetry.sdk.OpenTelemetrySdk"), "the OpenTelemetry SDK");
        assertEquals(false, present("io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter"), "an OTLP exporter");
        assertEquals(false, present("ch.qos.logback.classic.Logger"), "Logback");
        assertEquals(bringsMyBatis(), present("io.micrometer.core.instrument.MeterRegistry"), "Micrometer (the MyBatis module's gauges)");
        assertEquals(false, present("io.micrometer.prometheusmetrics.PrometheusMeterRegistry"), "the Prometheus registry");
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, AdopterCases.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** The version of the jar on the class path, as its Maven build recorded it; null when absent. */
    private static String version(String group, String artifact) throws IOException {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = AdopterCases.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }
}
