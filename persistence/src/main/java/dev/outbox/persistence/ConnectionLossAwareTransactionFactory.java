package dev.outbox.persistence;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.ibatis.session.TransactionIsolationLevel;
import org.apache.ibatis.transaction.Transaction;
import org.apache.ibatis.transaction.TransactionFactory;
import org.apache.ibatis.transaction.jdbc.JdbcTransaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MyBatis's JDBC transactions, except that rolling back on a connection that is already gone is
 * not an error. mybatis-guice rolls back in its {@code catch} block and, when that rollback
 * throws, the rollback's exception replaces the one that caused it. After PostgreSQL ends a
 * backend (57P01, a failover, a cut network) HikariCP swaps the connection for a closed proxy
 * whose every call throws "Connection is closed" without an SQL state: the caller then saw a
 * stateless, non-transient error, and the API answered 500 where the database was merely
 * unreachable (found by {@code ops/chaos.sh}, invariant 6). A transaction on a lost session is
 * already rolled back by the server, so there is nothing left to undo and the original failure
 * must be the one that surfaces.
 */
public final class ConnectionLossAwareTransactionFactory implements TransactionFactory {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLossAwareTransactionFactory.class);

    @Override
    public void setProperties(Properties props) {
        // no properties: the data source and auto-commit come from the session
    }

    @Override
    public Transaction newTransaction(Connection conn) {
        return new ConnectionLossAwareTransaction(conn);
    }

    @Override
    public Transaction newTransaction(DataSource dataSource, TransactionIsolationLevel level, boolean autoCommit) {
        return new ConnectionLossAwareTransaction(dataSource, level, autoCommit);
    }

    static final class ConnectionLossAwareTransaction extends JdbcTransaction {
        ConnectionLossAwareTransaction(Connection connection) {
            super(connection);
        }

        ConnectionLossAwareTransaction(DataSource ds, TransactionIsolationLevel level, boolean autoCommit) {
            super(ds, level, autoCommit);
        }

        @Override
        public void rollback() throws SQLException {
            if (connection != null && connection.isClosed()) {
                LOG.debug("rollback skipped: the connection is already closed, the server ended the transaction");
                return;
            }
            try {
                super.rollback();
            } catch (SQLException e) {
                String state = e.getSQLState();
                if (connection.isClosed() || state != null && (state.startsWith("08") || state.startsWith("57P"))) {
                    // the session died during the rollback: the server discards the transaction itself
                    LOG.debug("rollback on a lost connection ({}): the server ended the transaction", state);
                    return;
                }
                throw e;
            }
        }
    }
}
