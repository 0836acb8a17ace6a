package dev.outbox.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server (zonky's packaged binaries) started from this JVM, so that
 * {@code SKIP LOCKED}, advisory locks and {@code LISTEN/NOTIFY} behave exactly as in production.
 * Its data directory is kept across restarts; trust authentication, user {@code postgres},
 * listening on loopback.
 */
public final class EmbeddedDatabase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    private final EmbeddedPostgres postgres;
    private final Path dataDir;

    private EmbeddedDatabase(EmbeddedPostgres postgres, Path dataDir) {
        this.postgres = postgres;
        this.dataDir = dataDir;
    }

    /**
     * Starts PostgreSQL on {@code dataDir}: a new cluster the first time, the same data after.
     *
     * @param port the port, or 0 for any free one
     */
    public static EmbeddedDatabase start(Path dataDir, int port) throws IOException {
        Files.createDirectories(dataDir);
        long started = System.nanoTime();
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(false)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "200")
                // CDC mode (OUTBOX_RELAY_MODE=cdc) reads a logical replication slot: zero-infra mode
                // switches to it with that one variable
                .setServerConfig("wal_level", "logical")
                .setServerConfig("max_replication_slots", "10")
                .setServerConfig("max_wal_senders", "10");
        if (port != 0) {
            builder.setPort(port);
        }
        EmbeddedPostgres postgres = builder.start();
        EmbeddedDatabase db = new EmbeddedDatabase(postgres, dataDir);
        LOG.info(
                "embedded PostgreSQL on {} in {} ms, data in {}",
                db.jdbcUrl(),
                (System.nanoTime() - started) / 1_000_000,
                dataDir.toAbsolutePath());
        return db;
    }

    public int port() {
        return postgres.getPort();
    }

    public Path dataDir() {
        return dataDir;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
    }

    public String user() {
        return "postgres";
    }

    /** A psql command line that reaches this database, for the start-up banner. */
    public String psql() {
        return "psql -h 127.0.0.1 -p " + port() + " -U postgres postgres";
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
