package dev.outbox.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A registration's name becomes a PostgreSQL identifier ({@code flyway_<name>_history}) and its
 * prefix part of environment variable names: generated names over the whole range are accepted
 * exactly when they follow the rule (lower case, digits, underscores, at most 40), every accepted
 * one makes an identifier PostgreSQL keeps whole, and the others are refused with the rule.
 */
class ConsumerRegistrationTest {
    /** PostgreSQL truncates identifiers past 63 bytes, which would let two consumers share a history. */
    private static final int MAX_IDENTIFIER_BYTES = 63;

    static final class NoEffect implements MessageHandler {
        @Override
        public void apply(InboundMessage message) {}
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.oneOf(
                // near the rule: its characters and the ones next to it (hyphen, upper case, space, dot), every length
                // around the limit
                Arbitraries.strings().withChars("abcxyz019_-A .").ofMinLength(0).ofMaxLength(45),
                // and anything at all: upper case, hyphens, spaces, NUL, non-ASCII, surrogates
                Arbitraries.strings().all().ofMaxLength(70));
    }

    @Property(tries = 2_000)
    void aNameIsAcceptedExactlyWhenItFollowsTheRule(@ForAll("names") String name) {
        if (name.matches("[a-z][a-z0-9_]{0,39}")) {
            ConsumerRegistration r =
                    ConsumerRegistration.builder(name, "q", NoEffect.class).build();
            assertEquals("flyway_" + name + "_history", r.migrationHistoryTable());
            assertTrue(
                    r.migrationHistoryTable().getBytes(StandardCharsets.UTF_8).length <= MAX_IDENTIFIER_BYTES,
                    "an identifier PostgreSQL would truncate: " + r.migrationHistoryTable());
            assertEquals(name.toUpperCase(java.util.Locale.ROOT), r.settingsPrefix());
        } else {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    // a prefix of its own, so the name's rule alone decides
                    () -> ConsumerRegistration.builder(name, "q", NoEffect.class)
                            .settingsPrefix("C")
                            .build(),
                    () -> "accepted '" + name + "'");
            assertTrue(e.getMessage().contains("must match"), e.getMessage());
        }
    }

    @Test
    void theLongestNameStillMakesAnIdentifierPostgresqlKeepsWhole() {
        String longest = "a".repeat(40);
        assertTrue(ConsumerRegistration.builder(longest, "q", NoEffect.class)
                        .build()
                        .migrationHistoryTable()
                        .length()
                <= MAX_IDENTIFIER_BYTES);
        assertThrows(
                IllegalArgumentException.class,
                () -> ConsumerRegistration.builder(longest + "a", "q", NoEffect.class)
                        .build());
    }

    @Test
    void retentionMustUseOneOfTheConsumersMappers() {
        RetainedTable<Runnable> table = new RetainedTable<>("t", Runnable.class, (m, age, batch) -> 0);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ConsumerRegistration.builder("c", "q", NoEffect.class)
                        .retain(table)
                        .build());
        assertTrue(e.getMessage().contains("not among the consumer's mappers"), e.getMessage());
    }
}
