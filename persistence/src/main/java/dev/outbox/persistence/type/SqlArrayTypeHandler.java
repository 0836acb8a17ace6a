package dev.outbox.persistence.type;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.apache.ibatis.type.BaseTypeHandler;
import org.apache.ibatis.type.JdbcType;

/**
 * Binds a Java array as one PostgreSQL array parameter, so that a batch of N rows is one
 * statement ({@code WHERE id = ANY(?)}, {@code FROM unnest(?, ?)}) instead of N round trips.
 */
abstract class SqlArrayTypeHandler<T> extends BaseTypeHandler<T[]> {
    private final String elementType;

    SqlArrayTypeHandler(String elementType) {
        this.elementType = elementType;
    }

    @Override
    public void setNonNullParameter(PreparedStatement ps, int i, T[] parameter, JdbcType jdbcType) throws SQLException {
        Array array = ps.getConnection().createArrayOf(elementType, parameter);
        ps.setArray(i, array);
    }

    @Override
    public T[] getNullableResult(ResultSet rs, String columnName) throws SQLException {
        return read(rs.getArray(columnName));
    }

    @Override
    public T[] getNullableResult(ResultSet rs, int columnIndex) throws SQLException {
        return read(rs.getArray(columnIndex));
    }

    @Override
    public T[] getNullableResult(CallableStatement cs, int columnIndex) throws SQLException {
        return read(cs.getArray(columnIndex));
    }

    @SuppressWarnings("unchecked")
    private T[] read(Array array) throws SQLException {
        return array == null ? null : (T[]) array.getArray();
    }
}
