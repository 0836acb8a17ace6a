package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.apache.ibatis.exceptions.PersistenceException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which SQL states a caller may retry: decided by state, never by message text. */
class DataAccessTranslationTest {

    private static DataAccessException translate(String state) {
        return DataAccessTranslation.translate(
                new PersistenceException("### Error updating database\n### SQL: UPDATE ...",
                        new SQLException("server said something", state)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"08006", "08001", "57P01", "57P03", "53300", "53100", "53200", "25006", "57014"})
    void statesThatAreNotTheStatementsFaultAreTransient(String state) {
        DataAccessException e = translate(state);
        assertInstanceOf(DatabaseUnavailableException.class, e, state);
        assertTrue(e.isTransient(), state);
    }

    @ParameterizedTest
    @ValueSource(strings = {"40001", "40P01", "55P03"})
    void concurrencyConflictsAreTransient(String state) {
        DataAccessException e = translate(state);
        assertInstanceOf(ConcurrencyConflictException.class, e, state);
        assertTrue(e.isTransient(), state);
    }

    @ParameterizedTest
    @ValueSource(strings = {"22021", "22P02", "42703", "42P01", "23505", "XX000"})
    void dataAndProgrammingErrorsAreNot(String state) {
        assertFalse(translate(state).isTransient(), state);
    }
}
