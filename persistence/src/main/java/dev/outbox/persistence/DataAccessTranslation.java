package dev.outbox.persistence;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.ibatis.exceptions.PersistenceException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Wraps every {@code @Transactional} method, outside the transaction interceptor, so that
 * failures of the statements and of the commit itself leave the persistence layer as
 * {@link DataAccessException}s. Exceptions that are not about the database (domain rules, bugs)
 * pass through untouched.
 */
public final class DataAccessTranslation implements MethodInterceptor {

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        try {
            return invocation.proceed();
        } catch (PersistenceException | SQLException e) {
            throw translate(e);
        }
    }

    /** Maps a MyBatis or JDBC failure to a named exception by SQL state, never by message text. */
    public static DataAccessException translate(Throwable failure) {
        if (failure instanceof DataAccessException d) {
            return d;
        }
        SQLException sql = sqlExceptionIn(failure);
        String where = describe(failure);
        if (sql == null) {
            return new DataAccessException(where, failure);
        }
        if (sql instanceof SQLTransientConnectionException) {
            return new DatabaseUnavailableException("no database connection available: " + where, failure);
        }
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        if (state.startsWith("08") || state.startsWith("57P") || state.equals("53300") || state.equals("25006")) {
            // connection gone or server shutting down (08, 57P), no connection to be had (53300 is only
            // raised at connection start), a standby that refuses writes after a failover (25006): the
            // database is away, and nothing the caller sends can succeed until it is back
            return new DatabaseUnavailableException("database unavailable (" + state + "): " + where, failure);
        }
        if (state.equals("57014") || state.startsWith("53")) {
            // a statement cut by its timeout (57014), or out of memory, disk or a configured limit (53):
            // the database answers, and the same statement later may succeed, but it may also be the
            // statement's own fault, so retries of it must be bounded (see StatementRefusedException)
            return new StatementRefusedException("statement refused (" + state + "): " + where, failure);
        }
        if (state.equals("40001") || state.equals("40P01") || state.equals("55P03")) {
            return new ConcurrencyConflictException("concurrent update (" + state + ")", failure);
        }
        if (state.startsWith("23")) {
            String constraint = null;
            if (sql instanceof PSQLException p) {
                ServerErrorMessage m = p.getServerErrorMessage();
                constraint = m == null ? null : m.getConstraint();
            }
            return new ConstraintViolationException(
                    constraint, state, "constraint " + constraint + " refused the write (" + state + ")", failure);
        }
        return new DataAccessException("database error (" + state + "): " + where, failure);
    }

    /** The driver's failure in a chain of causes (MyBatis's, a plugin's); null when there is none. */
    public static SQLException sqlExceptionIn(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException s) {
                return s;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage() == null ? null : t.getMessage().strip();
        if (m == null || m.isEmpty()) {
            return t.getClass().getSimpleName();
        }
        // MyBatis messages embed the whole SQL and parameters: keep the first line only
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).trim();
    }
}
