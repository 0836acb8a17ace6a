package dev.outbox.relay;

import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.cdc.CdcSlotView;
import dev.outbox.persistence.cdc.CdcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay's replication slot and who reads it: checks the server can stream the outbox
 * (wal_level, the publication), creates the slot when it is missing or was invalidated (and hands
 * what was committed before it to the retry path), refuses a slot of another database or plugin,
 * and opens the replication connection and stream. PostgreSQL lets one session read a slot at a
 * time: when another one reads it, this relay is a {@link Standby}.
 */
final class CdcSlot {
    // the relay's log category: these lines are the CDC relay's, as they always were
    private static final Logger LOG = LoggerFactory.getLogger(CdcRelay.class);

    private final CdcConfig config;
    private final RelayConfig relayConfig;
    private final DatabaseConfig database;
    private final CdcStore store;
    private final CdcCounters counters;

    /** Thrown when another session reads the slot: this relay stands by. */
    static final class Standby extends Exception {
        private static final long serialVersionUID = 1L;

        Standby(String message) {
            super(message, null, false, false);
        }
    }

    CdcSlot(CdcConfig config, RelayConfig relayConfig, DatabaseConfig database, CdcStore store, CdcCounters counters) {
        this.config = config;
        this.relayConfig = relayConfig;
        this.database = database;
        this.store = store;
        this.counters = counters;
    }

    /** Makes sure the slot exists, streams the outbox and is free to read; a standby when it is not. */
    void ensure() throws Standby {
        String level = store.walLevel();
        if (!"logical".equals(level)) {
            throw new IllegalStateException("CDC mode needs wal_level = logical, the server runs with " + level
                    + " (ALTER SYSTEM SET wal_level = logical, then restart PostgreSQL; README, \"CDC mode\")");
        }
        if (!store.publishesOutbox(config.publication())) {
            // the table was dropped and created again (a schema migrated anew): the publication
            // survives without it, and the slot would stream nothing at all, silently
            LOG.error(
                    "publication {} does not publish message_outbox (was the table created again?): adding it",
                    config.publication());
            try {
                store.addOutboxTo(config.publication());
            } catch (DataAccessException e) {
                throw new IllegalStateException(
                        "publication " + config.publication() + " does not publish"
                                + " message_outbox and it cannot be added (" + e.getMessage() + "): run"
                                + " ALTER PUBLICATION " + config.publication() + " ADD TABLE message_outbox",
                        e);
            }
        }
        CdcSlotView slot = store.slot(config.slot()).orElse(null);
        if (slot != null && (!slot.thisDatabase() || !"pgoutput".equals(slot.plugin()))) {
            // slot names are the server's, not the database's: another database's relay (or another
            // tool) may have taken this one
            throw new IllegalStateException("replication slot " + config.slot() + " belongs to database "
                    + slot.database() + " with plugin " + slot.plugin() + ", not to this database with pgoutput:"
                    + " give this relay a slot of its own (OUTBOX_RELAY_CDC_SLOT)");
        }
        if (slot != null && slot.lost()) {
            counters.slotsRecreated.incrementAndGet();
            LOG.error(
                    "replication slot {} was invalidated (max_slot_wal_keep_size: the server dropped WAL it kept for"
                            + " it): dropping and recreating it; the rows committed meanwhile are still PENDING and"
                            + " the retry path publishes them by polling",
                    config.slot());
            store.dropSlot(config.slot());
            slot = null;
        }
        if (slot == null) {
            try {
                String lsn = store.createSlot(config.slot());
                LOG.info("created replication slot {} at {}", config.slot(), lsn);
            } catch (DataAccessException e) {
                // another relay created it first: read it, or stand by
                LOG.info("could not create replication slot {} ({}); looking again", config.slot(), e.getMessage());
            }
            // what was committed before the slot is not in its stream: the retry path's, now
            store.startPosition(config.slot(), relayConfig.relayId());
        } else if (slot.active()) {
            throw new Standby("slot " + config.slot() + " is read by backend " + slot.activePid());
        }
    }

    /** A replication connection to the outbox database, asking the server for our wal_sender_timeout. */
    Connection connect() throws SQLException {
        Properties props = DataSources.unpooled(database, " cdc");
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        // reads are non-blocking (readPending); a silent server is noticed by the ticks, not a timeout
        props.remove("socketTimeout");
        PGProperty.OPTIONS.set(
                props, "-c wal_sender_timeout=" + config.walSenderTimeout().toMillis());
        return DriverManager.getConnection(database.url(), props);
    }

    /** Starts reading the slot on {@code replication}; a standby when another session reads it. */
    PGReplicationStream open(Connection replication) throws SQLException, Standby {
        PGConnection pg = replication.unwrap(PGConnection.class);
        try {
            return pg.getReplicationAPI()
                    .replicationStream()
                    .logical()
                    .withSlotName(config.slot())
                    .withSlotOption("proto_version", "1")
                    .withSlotOption("publication_names", config.publication())
                    .withSlotOption("messages", "true")
                    .withStatusInterval(1, TimeUnit.SECONDS)
                    .start();
        } catch (PSQLException e) {
            if ("55006".equals(e.getSQLState())) {
                throw new Standby(e.getMessage());
            }
            throw e;
        }
    }
}
