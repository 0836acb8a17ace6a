package dev.outbox.persistence.type;

import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.ibatis.type.BaseTypeHandler;
import org.apache.ibatis.type.JdbcType;
import org.apache.ibatis.type.MappedTypes;
import org.postgresql.PGStatement;

/**
 * {@code timestamptz} as {@link Instant}, through {@code java.time}: MyBatis's own handler goes
 * through {@code java.sql.Timestamp}, whose calendar is Julian before 1582, so a row any SQL client
 * wrote with {@code created_at = '4713-01-01 BC'} became an instant 38 days away from the one
 * PostgreSQL (proleptic Gregorian, like {@code java.time}) means, and the relay put that on the
 * wire as the message's timestamp. CDC mode reads the same column from the WAL as text; both now
 * agree ({@code CdcDecodingIT}). {@code infinity} and {@code -infinity} stay what pgjdbc's
 * timestamps made of them.
 */
@MappedTypes(Instant.class)
public final class InstantTypeHandler extends BaseTypeHandler<Instant> {
    static final Instant INFINITY = Instant.ofEpochMilli(PGStatement.DATE_POSITIVE_INFINITY);
    static final Instant MINUS_INFINITY = Instant.ofEpochMilli(PGStatement.DATE_NEGATIVE_INFINITY);

    @Override
    public void setNonNullParameter(PreparedStatement ps, int i, Instant parameter, JdbcType jdbcType)
            throws SQLException {
        ps.setObject(i, OffsetDateTime.ofInstant(parameter, ZoneOffset.UTC));
    }

    @Override
    public Instant getNullableResult(ResultSet rs, String columnName) throws SQLException {
        return toInstant(rs.getObject(columnName, OffsetDateTime.class));
    }

    @Override
    public Instant getNullableResult(ResultSet rs, int columnIndex) throws SQLException {
        return toInstant(rs.getObject(columnIndex, OffsetDateTime.class));
    }

    @Override
    public Instant getNullableResult(CallableStatement cs, int columnIndex) throws SQLException {
        return toInstant(cs.getObject(columnIndex, OffsetDateTime.class));
    }

    static Instant toInstant(OffsetDateTime t) {
        if (t == null) {
            return null;
        }
        if (t.equals(OffsetDateTime.MAX)) {
            return INFINITY;
        }
        if (t.equals(OffsetDateTime.MIN)) {
            return MINUS_INFINITY;
        }
        return t.toInstant();
    }
}
