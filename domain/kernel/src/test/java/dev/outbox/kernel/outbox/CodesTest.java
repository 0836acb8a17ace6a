package dev.outbox.kernel.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * Codes are text with a form: every constant this version writes has it (so the database's check,
 * which holds the same form, takes it), and a name no constant has is an empty answer, never an
 * exception. A failure prints QuickTheories' seed, which {@code -DQT_SEED=<seed>} replays.
 */
class CodesTest {
    private static final List<String> KNOWN = Stream.concat(
                    Stream.of(OutboxStatus.values()).map(Enum::name),
                    Stream.of(ErrorCode.values()).map(Enum::name))
            .toList();

    @Test
    void everyStatusAndErrorCodeThisVersionWritesHasTheShape() {
        for (String name : KNOWN) {
            assertTrue(Codes.shaped(name), name + " does not match " + Codes.SHAPE + ": the database would refuse it");
        }
    }

    @Test
    void theShapeIsUpperCaseWordsOfAtMostFortyChars() {
        assertTrue(Codes.shaped("A"));
        assertTrue(Codes.shaped("FUTURE_727"));
        assertTrue(Codes.shaped("A" + "_".repeat(39)));
        assertFalse(Codes.shaped(null));
        assertFalse(Codes.shaped(""));
        assertFalse(Codes.shaped("pending"));
        assertFalse(Codes.shaped("_PENDING"));
        assertFalse(Codes.shaped("7PENDING"));
        assertFalse(Codes.shaped("PEND ING"));
        assertFalse(Codes.shaped("PENDING\n"));
        assertFalse(Codes.shaped("A".repeat(41)));
    }

    @Test
    void namedFindsTheConstantOfItsNameAndNothingElseAndNeverThrows() {
        qt().withExamples(2_000).forAll(names()).checkAssert(name -> {
            assertEquals(
                    Stream.of(OutboxStatus.values())
                            .filter(s -> s.name().equals(name))
                            .findFirst(),
                    OutboxStatus.named(name),
                    name);
            assertEquals(
                    Stream.of(ErrorCode.values())
                            .filter(c -> c.name().equals(name))
                            .findFirst(),
                    ErrorCode.named(name),
                    name);
        });
        assertEquals(Optional.empty(), OutboxStatus.named(null));
        assertEquals(Optional.empty(), ErrorCode.named(null));
    }

    @Test
    void aRecordCarriesANewerVersionsStatusAndCodeAsText() {
        OutboxRecord archived = record("ARCHIVED", "FUTURE_727");
        assertEquals("ARCHIVED", archived.status());
        assertEquals("FUTURE_727", archived.lastErrorCode());
        assertEquals(Optional.empty(), archived.knownStatus());
        assertEquals(Optional.empty(), archived.knownErrorCode());
        for (OutboxStatus s : OutboxStatus.values()) {
            assertFalse(archived.is(s), s.name());
        }

        OutboxRecord parked = record("PARKED", "UNROUTABLE");
        assertTrue(parked.is(OutboxStatus.PARKED));
        assertFalse(parked.is(OutboxStatus.PENDING));
        assertEquals(Optional.of(OutboxStatus.PARKED), parked.knownStatus());
        assertEquals(Optional.of(ErrorCode.UNROUTABLE), parked.knownErrorCode());
        assertEquals(Optional.empty(), record("PENDING", null).knownErrorCode());
    }

    /** Known names, near misses of them (case, a char more or less), shaped words and any text. */
    private static Gen<String> names() {
        List<String> nearMisses = new ArrayList<>();
        for (String name : KNOWN) {
            nearMisses.add(name.toLowerCase(java.util.Locale.ROOT));
            nearMisses.add(name + "_");
            nearMisses.add(name.substring(1));
            nearMisses.add(" " + name);
        }
        Gen<String> shaped = SourceDSL.integers()
                .between(0, 39)
                .zip(
                        SourceDSL.strings().betweenCodePoints('0', 'Z').ofLengthBetween(0, 39),
                        (n, tail) -> "F" + tail.replaceAll("[^A-Z0-9]", "_").substring(0, Math.min(n, tail.length())));
        return Generate.pick(KNOWN)
                .mix(Generate.pick(nearMisses), 30)
                .mix(shaped, 30)
                .mix(SourceDSL.strings().allPossible().ofLengthBetween(0, 45), 20);
    }

    private static OutboxRecord record(String status, String code) {
        return new OutboxRecord(
                UUID.randomUUID(),
                "order",
                "1",
                1L,
                "order.created",
                1,
                "orders.events",
                "order.created",
                "{}",
                "{}",
                status,
                0,
                Instant.EPOCH,
                code,
                null,
                Instant.EPOCH,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }
}
