package dev.outbox.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

    Gen<String> names() {
        List<Character> nearTheRule =
                "abcxyz019_-A .".chars().mapToObj(c -> (char) c).toList();
        return Generate.oneOf(
                        // near the rule: its characters and the ones next to it (hyphen, upper case, space, dot), every
                        // length around the limit
                        strings(Generate.pick(nearTheRule), 45),
                        // and anything at all: upper case, hyphens, spaces, NUL, non-ASCII, surrogates (any UTF-16
                        // unit)
                        strings(integers().between(0, 0xFFFF).map(c -> (char) c.intValue()), 70))
                // one name in ten an edge: empty, or one character (the first and last of the rule's set, NUL, a
                // blank, U+FFFF)
                .mix(Generate.pick(List.of("", "a", ".", "\0", " ", "\uffff")), 10)
                // printed with every character outside printable ASCII escaped
                .describedAs(name -> name.chars()
                        .mapToObj(c -> c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\u%04x", c))
                        .collect(Collectors.joining("", "'", "'")));
    }

    /** Strings of 0 to {@code maxLength} characters drawn from {@code chars}. */
    private static Gen<String> strings(Gen<Character> chars, int maxLength) {
        return lists().of(chars)
                .ofSizeBetween(0, maxLength)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()));
    }

    @Test
    void aNameIsAcceptedExactlyWhenItFollowsTheRule() {
        qt().withExamples(2_000).forAll(names()).checkAssert(name -> acceptedExactlyWhenItFollowsTheRule(name));
    }

    private static void acceptedExactlyWhenItFollowsTheRule(String name) {
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
