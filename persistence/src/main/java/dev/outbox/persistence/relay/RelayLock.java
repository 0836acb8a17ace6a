package dev.outbox.persistence.relay;

import dev.outbox.persistence.DataAccessTranslation;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;

/**
 * A relay's liveness: a session-level advisory lock {@code (NAMESPACE, lock_key)} held on a
 * connection of its own, outside the pool, for as long as the relay lives. PostgreSQL drops the
 * lock when the session ends, which is when the process dies (the kernel closes its socket, so a
 * SIGKILL is seen at once), when the connection is terminated, or when the server's TCP
 * keepalives give up on a host that vanished. A paused process (SIGSTOP) keeps its socket, and
 * its kernel still answers keepalives, so it keeps its lock and its leases.
 *
 * <p>Not thread-safe: one thread opens, uses and closes it (a pgjdbc connection is not to be
 * closed from another thread while it reads). Failures are {@link dev.outbox.persistence.DataAccessException}s.
 */
public final class RelayLock implements LivenessLock {
    /** First key of every relay's lock: "outb" in ASCII, recognisable in {@code pg_locks}. */
    public static final int NAMESPACE = 0x6f757462;
    /** Ends the application name of every liveness session, so a refused relay can tell one from a sweep. */
    public static final String APPLICATION_NAME_SUFFIX = "-liveness";

    private static final int KEEPALIVE_PROBES = 3;

    private final Connection connection;
    private final String relayId;
    private final int lockKey;
    private final int backendPid;
    /** What {@link #recordIncarnation} wrote, to write it again if the registration goes. */
    private volatile String host;

    private volatile long pid;
    private volatile Instant startedAt;

    private RelayLock(Connection connection, String relayId, int lockKey, int backendPid) {
        this.connection = connection;
        this.relayId = relayId;
        this.lockKey = lockKey;
        this.backendPid = backendPid;
    }

    /**
     * Connects, makes the server notice a silent client within about {@code silentHostTimeout},
     * and registers {@code relayId} (keeping its lock key if it was registered before). Does not
     * take the lock: see {@link #tryAcquire()}.
     */
    public static RelayLock connect(DatabaseConfig database, String relayId, Duration silentHostTimeout) {
        Connection c = null;
        try {
            c = DriverManager.getConnection(database.url(), properties(database, silentHostTimeout));
            c.setAutoCommit(true);
            // server side: a host that vanished (power loss, cut network) sends no FIN; these make the
            // backend end the session, and so free the lock, after about silentHostTimeout
            long total = Math.max(2, silentHostTimeout.toSeconds());
            long idle = Math.max(1, total / 2);
            long interval = Math.max(1, (total - idle) / KEEPALIVE_PROBES);
            set(c, "tcp_keepalives_idle", idle);
            set(c, "tcp_keepalives_interval", interval);
            set(c, "tcp_keepalives_count", KEEPALIVE_PROBES);
            set(c, "tcp_user_timeout", silentHostTimeout.toMillis());
            int key;
            // touching heartbeat_at keeps a long-dead registration from being forgotten under us
            try (PreparedStatement s = c.prepareStatement(
                    "INSERT INTO outbox_relays (relay_id, heartbeat_at)"
                            + " VALUES (?, now()) ON CONFLICT (relay_id) DO UPDATE SET heartbeat_at = now() RETURNING lock_key")) {
                s.setString(1, relayId);
                key = single(s).getInt(1);
            }
            int pid;
            try (PreparedStatement s = c.prepareStatement("SELECT pg_backend_pid()")) {
                pid = single(s).getInt(1);
            }
            RelayLock lock = new RelayLock(c, relayId, key, pid);
            c = null;
            return lock;
        } catch (SQLException e) {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException closing) {
                    e.addSuppressed(closing);
                }
            }
            throw DataAccessTranslation.translate(e);
        }
    }

    private static Properties properties(DatabaseConfig database, Duration silentHostTimeout) {
        Properties p = DataSources.unpooled(database, APPLICATION_NAME_SUFFIX);
        // client side: the statements here are tiny, so one that hangs means the server is gone
        p.setProperty("socketTimeout", String.valueOf(Math.max(5, silentHostTimeout.toSeconds())));
        return p;
    }

    @Override
    public boolean tryAcquire() {
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            s.setInt(1, NAMESPACE);
            s.setInt(2, lockKey);
            return single(s).getBoolean(1);
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
    }

    @Override
    public void recordIncarnation(String host, long pid, Instant startedAt) {
        this.host = host;
        this.pid = pid;
        this.startedAt = startedAt;
        try (PreparedStatement s = connection.prepareStatement("UPDATE outbox_relays SET host = ?, pid = ?,"
                + " started_at = ?, backend_pid = pg_backend_pid(), heartbeat_at = now() WHERE relay_id = ?")) {
            s.setString(1, host);
            s.setLong(2, pid);
            s.setTimestamp(3, Timestamp.from(startedAt));
            s.setString(4, relayId);
            s.executeUpdate();
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
    }

    /**
     * A round trip on the lock's own session: it fails as soon as the session is gone, which is
     * how the relay learns that it lost its lock. Also shows operators when it was last seen.
     */
    @Override
    public boolean heartbeat() {
        try (PreparedStatement s =
                connection.prepareStatement("UPDATE outbox_relays SET heartbeat_at = now() WHERE relay_id = ?")) {
            s.setString(1, relayId);
            if (s.executeUpdate() == 1) {
                return true;
            }
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
        // the registration is gone while this session holds its lock (deleted by hand, a truncated
        // table): the claim fence looks for it, so without it the relay would claim nothing, for
        // ever. Write it back under the key whose lock this session holds.
        try (PreparedStatement s = connection.prepareStatement("INSERT INTO outbox_relays (relay_id, lock_key, host,"
                + " pid, started_at, backend_pid, heartbeat_at) OVERRIDING SYSTEM VALUE"
                + " VALUES (?, ?, ?, ?, ?, pg_backend_pid(), now()) ON CONFLICT (relay_id) DO NOTHING")) {
            s.setString(1, relayId);
            s.setInt(2, lockKey);
            s.setString(3, host);
            s.setLong(4, pid);
            s.setTimestamp(5, startedAt == null ? null : Timestamp.from(startedAt));
            s.executeUpdate();
            return false;
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
    }

    /** Who holds this relay id's lock now, for the log line of a process that has to wait. */
    @Override
    public LockHolder holder() {
        try (PreparedStatement s = connection.prepareStatement("SELECT l.pid, a.application_name,"
                + " host(a.client_addr), a.backend_start, r.host, r.pid"
                + " FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
                + " LEFT JOIN outbox_relays r ON r.relay_id = ?"
                + " WHERE l.locktype = 'advisory' AND l.classid = ?::integer::oid AND l.objid = ?::integer::oid"
                + " AND l.objsubid = 2 AND l.granted"
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
            s.setString(1, relayId);
            s.setInt(2, NAMESPACE);
            s.setInt(3, lockKey);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return LockHolder.nobody();
                }
                String application = rs.getString(2);
                return new LockHolder(
                        "database backend " + rs.getInt(1) + " (" + application + " from "
                                + (rs.getString(3) == null ? "a local socket" : rs.getString(3)) + ", connected since "
                                + rs.getTimestamp(4) + "); the registry names host " + rs.getString(5) + " pid "
                                + rs.getObject(6),
                        application != null && application.endsWith(APPLICATION_NAME_SUFFIX));
            }
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
    }

    public String relayId() {
        return relayId;
    }

    @Override
    public int lockKey() {
        return lockKey;
    }

    /** The server process of this session: what {@code pg_terminate_backend} would end. */
    @Override
    public int backendPid() {
        return backendPid;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        }
    }

    private static void set(Connection c, String name, long value) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT set_config(?, ?, false)")) {
            s.setString(1, name);
            s.setString(2, String.valueOf(value));
            s.execute();
        }
    }

    private static ResultSet single(PreparedStatement s) throws SQLException {
        ResultSet rs = s.executeQuery();
        if (!rs.next()) {
            throw new SQLException("no row returned", "02000");
        }
        return rs;
    }
}
