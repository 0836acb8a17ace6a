package dev.outbox.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.OutboxException;
import dev.outbox.OutboxPersistence;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a service calls at its start fails, when it fails, as the front door's {@link
 * OutboxException}: a service compiles against the front door alone and cannot catch Flyway's or
 * the persistence layer's types. The database here is a port nothing listens on.
 */
class FrontDoorSetupFailuresIT {
    private static PGSimpleDataSource nothingListening() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName("outbox_test");
        ds.setUser("postgres");
        ds.setConnectTimeout(2);
        return ds;
    }

    @Test
    void migrateFailsAsAnOutboxException() throws IOException {
        OutboxException e = assertThrows(OutboxException.class, () -> OutboxPersistence.migrate(nothingListening()));

        assertEquals(OutboxException.class, e.getClass(), e.toString());
        assertTrue(e.getMessage().startsWith("the outbox's migrations did not complete"), e.getMessage());
        assertNotNull(causeOf(e, SQLException.class), "the driver's failure is kept as the cause");
    }

    @Test
    void registerFailsAsAnOutboxException() throws IOException {
        OutboxException e =
                assertThrows(OutboxException.class, () -> OutboxPersistence.register(nothingListening(), "a-service"));

        assertNotNull(causeOf(e, SQLException.class), "the driver's failure is kept as the cause: " + e);
    }

    private static <T extends Throwable> T causeOf(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }
}
