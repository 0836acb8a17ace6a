package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** A declaration reads what it declares: its range, its choices, its default, nothing else. */
class SettingTest {
    private static final Setting<Integer> WINDOW = Setting.integer("OUTBOX_TEST_WINDOW", 4_096, 1, 65_535, "a window");
    private static final Setting<String> MODE =
            Setting.oneOf("OUTBOX_TEST_MODE", "polling", List.of("polling", "cdc"), "a mode");
    private static final Setting<String> SLOT =
            Setting.matching("OUTBOX_TEST_SLOT", "outbox_relay", "[a-z0-9_]{1,63}", "a slot name", "a slot");
    private static final Setting<Duration> COMPUTED = Setting.duration(
                    "OUTBOX_TEST_COMPUTED", null, Duration.ZERO, Duration.ofHours(1), "computed")
            .defaultShownAs("twice the other");
    private static final Setting<Integer> PER_CONSUMER =
            Setting.integer("OUTBOX_<CONSUMER>_PREFETCH", 50, 1, 10_000, "per consumer");

    @Test
    void anIntegerIsAcceptedExactlyInsideItsRange() {
        qt().withExamples(500)
                .forAll(ints(-10, 70_000, 65_534, 65_535, 65_536))
                .checkAssert(value -> acceptedInsideItsRange(value));
    }

    private static void acceptedInsideItsRange(int value) {
        Settings s = new Settings(Map.of("OUTBOX_TEST_WINDOW", Integer.toString(value)));
        if (value >= 1 && value <= 65_535) {
            assertEquals(value, s.get(WINDOW));
        } else {
            ConfigurationException e = assertThrows(ConfigurationException.class, () -> s.get(WINDOW));
            assertTrue(e.getMessage().startsWith("OUTBOX_TEST_WINDOW=" + value + ": "), e.getMessage());
        }
    }

    @Test
    void oneOfAcceptsOnlyItsChoices() {
        qt().withExamples(500).forAll(strings(1, 12)).checkAssert(value -> {
            Settings s = new Settings(Map.of("OUTBOX_TEST_MODE", value));
            String trimmed = value.strip();
            if (value.isBlank()) {
                assertEquals("polling", s.get(MODE), "blank is unset: the default");
            } else if (trimmed.equals("polling") || trimmed.equals("cdc")) {
                assertEquals(trimmed, s.get(MODE));
            } else {
                ConfigurationException e = assertThrows(ConfigurationException.class, () -> s.get(MODE));
                assertTrue(e.getMessage().contains("OUTBOX_TEST_MODE"), e.getMessage());
            }
        });
    }

    @Test
    void matchingAcceptsOnlyWhatItsPatternDoes() {
        qt().withExamples(500).forAll(strings(1, 70)).checkAssert(value -> {
            Settings s = new Settings(Map.of("OUTBOX_TEST_SLOT", value));
            String trimmed = value.strip();
            if (value.isBlank()) {
                assertEquals("outbox_relay", s.get(SLOT));
            } else if (trimmed.matches("[a-z0-9_]{1,63}")) {
                assertEquals(trimmed, s.get(SLOT));
            } else {
                assertThrows(ConfigurationException.class, () -> s.get(SLOT));
            }
        });
    }

    @Test
    void aControlCharacterAnywhereStopsStartUpNamingTheVariable() {
        qt().withExamples(300)
                .forAll(ints(0, 0x9f), ints(0, 6))
                .checkAssert((control, at) -> controlCharacterStopsStartUp(control, at));
    }

    private static void controlCharacterStopsStartUp(int control, int at) {
        if (!Character.isISOControl(control) || Character.isWhitespace(control)) {
            return; // whitespace at either end is trimmed; that is covered above
        }
        String value = new StringBuilder("polling").insert(at, (char) control).toString();
        ConfigurationException e = assertThrows(
                ConfigurationException.class, () -> new Settings(Map.of("OUTBOX_TEST_MODE", value)).get(MODE));
        assertTrue(e.getMessage().startsWith("OUTBOX_TEST_MODE contains the control character U+"), e.getMessage());
    }

    /**
     * An int of {@code [min, max]}, one time in ten an edge of the range: each end, one in from each
     * end, and -2 to 2 where inside, and {@code alsoEdges} (a setting's own bounds and their neighbours).
     */
    private static Gen<Integer> ints(int min, int max, int... alsoEdges) {
        List<Integer> edges = IntStream.concat(
                        IntStream.of(min, min + 1, -2, -1, 0, 1, 2, max - 1, max), IntStream.of(alsoEdges))
                .filter(v -> v >= min && v <= max)
                .distinct()
                .boxed()
                .toList();
        return integers().between(min, max).mix(Generate.pick(edges), 10);
    }

    /**
     * Strings of {@code minLength} to {@code maxLength} UTF-16 units, each any character but a
     * surrogate, a noncharacter (U+FDD0 to U+FDEF, U+FFFE, U+FFFF) or one of private use (U+E000 to
     * U+F8FF); one time in ten a single NUL or a single blank instead.
     */
    private static Gen<String> strings(int minLength, int maxLength) {
        // 0000-D7FF, F900-FDCF, FDF0-FFFD, counted through in that order
        Gen<Character> chars = integers().between(0, 0xD800 + 0x4D0 + 0x20E - 1).map(i -> {
            int c = i < 0xD800 ? i : i < 0xD800 + 0x4D0 ? 0xF900 + i - 0xD800 : 0xFDF0 + i - 0xD800 - 0x4D0;
            return (char) c;
        });
        return lists().of(chars)
                .ofSizeBetween(minLength, maxLength)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()))
                .mix(Generate.pick(List.of("\0", " ")), 10)
                .describedAs(s -> s.chars()
                        .mapToObj(c -> c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\u%04x", c))
                        .collect(Collectors.joining("", "'", "'")));
    }

    @Test
    void theDefaultIsWhatAnUnsetVariableReads() {
        Settings unset = new Settings(Map.of());
        assertEquals(4_096, unset.get(WINDOW));
        assertEquals("`4096`", WINDOW.shownDefault());
        assertEquals("integer 1 to 65535", WINDOW.accepts());
    }

    @Test
    void aComputedDefaultMustBeGivenByTheReader() {
        Settings unset = new Settings(Map.of());
        assertThrows(IllegalStateException.class, () -> unset.get(COMPUTED));
        assertEquals(Duration.ofSeconds(9), unset.get(COMPUTED, Duration.ofSeconds(9)));
        assertEquals(
                Duration.ofSeconds(3), new Settings(Map.of("OUTBOX_TEST_COMPUTED", "3s")).get(COMPUTED, Duration.ZERO));
        assertEquals("twice the other", COMPUTED.shownDefault());
    }

    @Test
    void aPerConsumerSettingIsReadUnderTheConsumersPrefix() {
        Settings s = new Settings(Map.of("OUTBOX_LEDGER_PREFETCH", "7"));
        assertThrows(IllegalStateException.class, () -> s.get(PER_CONSUMER));
        assertEquals(7, s.get(PER_CONSUMER.forConsumer("LEDGER")));
        assertEquals(50, s.get(PER_CONSUMER.forConsumer("SHIPMENTS")));
        assertThrows(IllegalStateException.class, () -> WINDOW.forConsumer("LEDGER"));
    }

    @Test
    void aDeclarationIsOneDocumentedOutboxVariable() {
        assertThrows(IllegalArgumentException.class, () -> Setting.flag("RELAY_LISTEN", true, "no prefix"));
        assertThrows(IllegalArgumentException.class, () -> Setting.flag("OUTBOX_relay", true, "lower case"));
        assertThrows(IllegalArgumentException.class, () -> Setting.flag("OUTBOX_X", true, "a | breaks the table"));
        assertThrows(IllegalArgumentException.class, () -> Setting.flag("OUTBOX_X", true, " "));
        assertThrows(
                IllegalArgumentException.class,
                () -> Setting.oneOf("OUTBOX_X", "other", List.of("polling", "cdc"), "default not a choice"));
    }
}
