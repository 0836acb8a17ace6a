package dev.outbox.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.outbox.persistence.outbox.OutboxInsertMapper;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The outbox's row has two INSERT texts: the JDBC core's, with {@code ?} placeholders, and the
 * MyBatis statement the MyBatis-Guice stacks run (so that mybatis-guice counts the write), with
 * named parameters. They must insert the same columns with the same expressions: with MyBatis's
 * parameters read as {@code ?}, the two texts are one. (In package {@code dev.outbox.jdbc} to read
 * the core's package-private text.)
 */
class OneInsertTest {
    private static final Pattern NAMED = Pattern.compile("#\\{[^}]*}");

    @Test
    void theMyBatisInsertIsTheJdbcCoresWithNamedParameters() {
        assertEquals(
                normalised(JdbcOutbox.INSERT),
                normalised(NAMED.matcher(OutboxInsertMapper.INSERT).replaceAll("?")));
    }

    @Test
    void theComparisonSeesADifference() {
        String other = OutboxInsertMapper.INSERT.replace("clock_timestamp()", "now()");
        assertNotEquals(
                normalised(JdbcOutbox.INSERT), normalised(NAMED.matcher(other).replaceAll("?")));
    }

    private static String normalised(String sql) {
        return sql.replaceAll("\\s+", " ")
                .replaceAll("\\( ", "(")
                .replaceAll(" \\)", ")")
                .strip();
    }
}
