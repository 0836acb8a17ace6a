package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

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

    @Property(tries = 500)
    void anIntegerIsAcceptedExactlyInsideItsRange(@ForAll @IntRange(min = -10, max = 70_000) int value) {
        Settings s = new Settings(Map.of("OUTBOX_TEST_WINDOW", Integer.toString(value)));
        if (value >= 1 && value <= 65_535) {
            assertEquals(value, s.get(WINDOW));
        } else {
            ConfigurationException e = assertThrows(ConfigurationException.class, () -> s.get(WINDOW));
            assertTrue(e.getMessage().startsWith("OUTBOX_TEST_WINDOW=" + value + ": "), e.getMessage());
        }
    }

    @Property(tries = 500)
    void oneOfAcceptsOnlyItsChoices(@ForAll @StringLength(min = 1, max = 12) String value) {
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
    }

    @Property(tries = 500)
    void matchingAcceptsOnlyWhatItsPatternDoes(@ForAll @StringLength(min = 1, max = 70) String value) {
        Settings s = new Settings(Map.of("OUTBOX_TEST_SLOT", value));
        String trimmed = value.strip();
        if (value.isBlank()) {
            assertEquals("outbox_relay", s.get(SLOT));
        } else if (trimmed.matches("[a-z0-9_]{1,63}")) {
            assertEquals(trimmed, s.get(SLOT));
        } else {
            assertThrows(ConfigurationException.class, () -> s.get(SLOT));
        }
    }

    @Property(tries = 300)
    void aControlCharacterAnywhereStopsStartUpNamingTheVariable(
            @ForAll @IntRange(min = 0, max = 0x9f) int control, @ForAll @IntRange(min = 0, max = 6) int at) {
        if (!Character.isISOControl(control) || Character.isWhitespace(control)) {
            return; // whitespace at either end is trimmed; that is covered above
        }
        String value = new StringBuilder("polling").insert(at, (char) control).toString();
        ConfigurationException e = assertThrows(
                ConfigurationException.class, () -> new Settings(Map.of("OUTBOX_TEST_MODE", value)).get(MODE));
        assertTrue(e.getMessage().startsWith("OUTBOX_TEST_MODE contains the control character U+"), e.getMessage());
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
