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
        return DataAccessTranslation.translate(new PersistenceException(
                "### Error updating database\n### SQL: UPDATE ...", new SQLException("server said something", state)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"08006", "08001", "57P01", "57P03", "53300", "25006"})
    void statesThatSayTheDatabaseIsAwayAreTransientUnavailability(String state) {
        DataAccessException e = translate(state);
        assertInstanceOf(DatabaseUnavailableException.class, e, state);
        assertTrue(e.isTransient(), state);
    }

    /**
     * The database answered but would not finish this statement now: transient (the API answers
     * 503), yet not "the database is away", because the statement itself may be the cause and a
     * caller that waited for the database to come back would retry it for ever.
     */
    @ParameterizedTest
    @ValueSource(strings = {"57014", "53000", "53100", "53200", "53400"})
    void statementsTheReachableDatabaseRefusedForNowAreTransientButNotUnavailability(String state) {
        DataAccessException e = translate(state);
        assertInstanceOf(StatementRefusedException.class, e, state);
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
