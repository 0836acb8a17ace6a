package dev.outbox.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.persistence.ConcurrencyConflictException;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.StatementRefusedException;
import org.junit.jupiter.api.Test;

/**
 * How the kinds of database failure reach a client. Which SQL state is which kind is decided by
 * {@code DataAccessTranslationTest} (and against PostgreSQL by {@code LostConnectionIT}); here only
 * the status and the sentence a client reads.
 */
class ProblemExceptionMapperTest {

    @Test
    void aStatementTheDatabaseRefusedForNowIsA503ThatSaysTheDatabaseIsBusy() {
        Problem p = ProblemExceptionMapper.problemFor(new StatementRefusedException(
                "statement refused (57014): canceling statement due to statement timeout", null));
        assertEquals(503, p.status());
        assertEquals("service_unavailable", p.code());
        assertTrue(p.detail().contains("busy"), p.detail());
        assertTrue(!p.detail().contains("57014"), "no SQL state or server text reaches a client: " + p.detail());
    }

    @Test
    void anUnreachableDatabaseIsA503ThatSaysSo() {
        Problem p = ProblemExceptionMapper.problemFor(
                new DatabaseUnavailableException("database unavailable (08006)", null));
        assertEquals(503, p.status());
        assertTrue(p.detail().contains("not reachable"), p.detail());
    }

    @Test
    void aConcurrentUpdateIsA409AndAPermanentErrorA500() {
        assertEquals(
                409,
                ProblemExceptionMapper.problemFor(new ConcurrencyConflictException("40001", null))
                        .status());
        assertEquals(
                500,
                ProblemExceptionMapper.problemFor(new DataAccessException("database error (22021)", null))
                        .status());
    }
}
